package queue

type Queue struct {
	items []int
}

func (self *Queue) Push(v int) {
	self.items = append(self.items, v)
}

func (q *Queue) Pop() (int, bool) {
	if len(q.items) == 0 {
		return 0, false
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, true
}
