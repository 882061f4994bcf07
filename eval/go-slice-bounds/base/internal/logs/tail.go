package logs

// Tail returns the last n lines (all of them when there are fewer).
func Tail(lines []string, n int) []string {
	if n <= 0 {
		return nil
	}
	if n > len(lines) {
		n = len(lines)
	}
	return lines[len(lines)-n:]
}
