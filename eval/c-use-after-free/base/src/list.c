#include <stdlib.h>

struct node {
  int value;
  struct node *next;
};

/* Removes the first node holding value; returns 1 when one was removed. */
int list_remove(struct node **head, int value) {
  for (struct node **p = head; *p; p = &(*p)->next) {
    if ((*p)->value == value) {
      struct node *dead = *p;
      *p = dead->next;
      free(dead);
      return 1;
    }
  }
  return 0;
}
