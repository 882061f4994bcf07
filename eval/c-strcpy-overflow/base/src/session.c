#include <string.h>

#include "session.h"

int session_set_user(struct session *s, const char *name) {
  size_t len = strlen(name);
  if (len >= sizeof s->user) return -1;
  memcpy(s->user, name, len + 1);
  return 0;
}
