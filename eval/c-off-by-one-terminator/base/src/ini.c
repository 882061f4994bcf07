#include <string.h>

/* Copies the key of "key=value" into out (at most outsize-1 characters). */
int ini_key(const char *line, char *out, size_t outsize) {
  const char *eq = strchr(line, '=');
  if (!eq || outsize == 0) return -1;
  size_t n = (size_t)(eq - line);
  if (n >= outsize) n = outsize - 1;
  memcpy(out, line, n);
  out[n] = '\0';
  return (int)n;
}
