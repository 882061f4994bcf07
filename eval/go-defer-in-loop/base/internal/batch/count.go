package batch

import (
	"bufio"
	"os"
)

func countLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	s := bufio.NewScanner(f)
	for s.Scan() {
		n++
	}
	return n, s.Err()
}

func CountAll(paths []string) (int, error) {
	total := 0
	for _, p := range paths {
		n, err := countLines(p)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
