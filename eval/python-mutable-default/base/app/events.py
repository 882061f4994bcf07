"""Building analytics events."""
import time


def make_event(name, user_id):
    return {
        "name": name,
        "user": user_id,
        "at": time.time(),
        "tags": [],
    }


def add_tag(event, tag):
    event["tags"].append(tag)
    return event
