#!/usr/bin/env python3
"""Renders English prose as one wide 48-pixel text line for the recognizer.

  render_text.py --width=W [--seed=0] [--source=FILE] OUT_DIR
writes OUT_DIR/image.png (the line, RGB), OUT_DIR/input.npy ([1, 3, 48, W]
float32, normalized as PP-OCR's recognizer expects: (x / 255 - 0.5) / 0.5)
and OUT_DIR/text.txt (the text drawn, in order).

The prose is the GPL-3 text every Debian system ships
(/usr/share/common-licenses/GPL-3), read from the start. It is split into
phrases of 30 to 70 characters, each drawn with one of the six
fonts-dejavu-core faces at 26 to 34 pixels, dark grey on off-white, and the
phrases are placed side by side with 12 to 40 pixel gaps until W is filled
(the last one cut at W), so that the model attends over one long line of
real-looking text. Needs python3-pil and fonts-dejavu-core.
"""
import argparse
import os
import re
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONTS = ("DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf",
         "DejaVuSans-Bold.ttf", "DejaVuSerif-Bold.ttf",
         "DejaVuSansMono-Bold.ttf")
HEIGHT = 48


def phrases(text, rng):
    words = re.sub(r"\s+", " ", text).strip().split(" ")
    i = 0
    while i < len(words):
        limit = int(rng.integers(30, 71))
        phrase = words[i]
        i += 1
        while i < len(words) and len(phrase) + 1 + len(words[i]) <= limit:
            phrase += " " + words[i]
            i += 1
        yield phrase


def render(text, width, rng):
    paths = [os.path.join(FONT_DIR, name) for name in FONTS]
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        sys.exit("render_text.py: error: missing " + ", ".join(missing) +
                 " (apt-get install fonts-dejavu-core)")
    canvas = Image.new("RGB", (width, HEIGHT), (246, 244, 240))
    draw = ImageDraw.Draw(canvas)
    x, drawn = int(rng.integers(4, 16)), []
    for phrase in phrases(text, rng):
        if x >= width:
            break
        font = ImageFont.truetype(paths[int(rng.integers(len(paths)))],
                                  int(rng.integers(26, 35)))
        left, top, right, bottom = draw.textbbox((0, 0), phrase, font=font)
        ink = int(rng.integers(10, 60))
        y = (HEIGHT - (bottom - top)) // 2 - top
        draw.text((x - left, y), phrase, font=font, fill=(ink, ink, ink))
        drawn.append(phrase)
        x += right - left + int(rng.integers(12, 41))
    if x < width:
        sys.exit(f"render_text.py: error: the text fills {x} of {width} "
                 "pixels; give a longer --source")
    return canvas, drawn


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--width", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--source", default="/usr/share/common-licenses/GPL-3")
    args = parser.parse_args()
    with open(args.source, encoding="utf-8") as f:
        text = f.read()
    rng = np.random.default_rng(args.seed)
    image, drawn = render(text, args.width, rng)
    os.makedirs(args.out_dir, exist_ok=True)
    image.save(os.path.join(args.out_dir, "image.png"))
    x = np.asarray(image, dtype=np.float32).transpose(2, 0, 1)[None]
    np.save(os.path.join(args.out_dir, "input.npy"),
            ((x / 255.0 - 0.5) / 0.5).astype(np.float32))
    with open(os.path.join(args.out_dir, "text.txt"), "w") as f:
        f.write("\n".join(drawn) + "\n")
    print(f"rendered {len(drawn)} phrases, {sum(map(len, drawn))} characters, "
          f"{args.width} x {HEIGHT} pixels")


if __name__ == "__main__":
    main()
