package httpx

type Headers struct {
	values map[string]string
}

func NewHeaders() *Headers {
	return &Headers{values: map[string]string{}}
}

func (h *Headers) Set(name, value string) {
	h.values[name] = value
}

func (h *Headers) Get(name string) string {
	return h.values[name]
}
