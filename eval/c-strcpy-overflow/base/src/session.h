#ifndef SESSION_H
#define SESSION_H

struct session {
  char user[32];
  int flags;
};

int session_set_user(struct session *s, const char *name);

#endif
