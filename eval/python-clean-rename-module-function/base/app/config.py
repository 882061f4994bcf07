import json


def get_cfg(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)
