import subprocess


def make_thumbnail(src, dest, size=128):
    subprocess.run(
        ["convert", src, "-thumbnail", f"{size}x{size}", dest],
        check=True,
        timeout=30,
    )
