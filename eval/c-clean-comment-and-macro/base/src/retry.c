#include <unistd.h>

int with_retry(int (*op)(void *), void *arg) {
  for (int attempt = 0; attempt < 5; attempt++) {
    if (op(arg) == 0) return 0;
    usleep(1000u << attempt);
  }
  return -1;
}
