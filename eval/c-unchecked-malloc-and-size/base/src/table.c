#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct table {
  size_t count;
  uint32_t *cells;
};

int table_init(struct table *t, size_t rows, size_t cols) {
  if (cols != 0 && rows > SIZE_MAX / cols / sizeof(uint32_t)) return -1;
  t->cells = calloc(rows * cols, sizeof(uint32_t));
  if (!t->cells) return -1;
  t->count = rows * cols;
  return 0;
}
