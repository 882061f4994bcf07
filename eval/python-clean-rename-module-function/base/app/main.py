from app.config import get_cfg


def main(argv):
    cfg = get_cfg(argv[1] if len(argv) > 1 else "config.json")
    return cfg.get("name", "app")
