#!/usr/bin/env python3
"""Checks a `singulab view --screenshot` PNG of a scene paused at a singular event.

Standard library only (zlib): decodes the PNG, then checks that
  * the window is not blank (many distinct colours overall),
  * the canvas (between the side panels) shows the mechanism: pixels of the bar fill colour,
  * the canvas shows admissible-motion arrows: pixels of at least `--motions` of the
    per-motion colours (src/app/theme.rs),
  * the side panels are present: the left and right strips are mostly not canvas background.
With --side-by-side (the view's traditional | continued layout, no plots panel) each half of
the canvas must show the mechanism and the arrows, and only the left panel is checked.
Exit status 0 when all hold; otherwise prints what failed and exits 1.
"""
import argparse
import struct
import sys
import zlib

DARK_BACKGROUND = (22, 24, 30)
DARK_BAR_FILL = (86, 132, 196)
DARK_MOTIONS = [(255, 150, 40), (240, 80, 200), (90, 220, 110), (80, 200, 255), (250, 230, 80), (255, 90, 90)]


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    pixel = lambda x, y: tuple(rows[y][x * channels:x * channels + 3])
    return width, height, pixel


def near(p, q, tol=6):
    return all(abs(a - b) <= tol for a, b in zip(p, q))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("png")
    ap.add_argument("--motions", type=int, default=3, help="motion colours that must appear")
    ap.add_argument("--side-by-side", action="store_true", help="two canvases, no plots panel")
    args = ap.parse_args()
    width, height, pixel = read_png(args.png)
    failures = []
    step = 2
    if args.side_by_side:
        # Two canvases right of the left panel (~290 px), their qd plots in the lower third.
        middle = int(width * 0.61)
        canvases = {"traditional canvas": (int(width * 0.22), middle), "continued canvas": (middle, width)}
        bottom = 0.58
    else:
        # One canvas between the left (~290 px) and right (~470 px) panels.
        canvases = {"canvas": (int(width * 0.22), int(width * 0.68))}
        bottom = 0.92
    colours, canvas = set(), {name: [] for name in canvases}
    for y in range(int(height * 0.12), int(height * 0.92), step):
        for x in range(0, width, step):
            p = pixel(x, y)
            colours.add(p)
            for name, (x0, x1) in canvases.items():
                if x0 <= x < x1 and y < height * bottom:
                    canvas[name].append(p)
    print(f"{args.png}: {width}x{height}, {len(colours)} distinct colours (sampled)")
    if len(colours) < 200:
        failures.append(f"only {len(colours)} distinct colours: blank or nearly blank window")
    for name, pixels in canvas.items():
        bars = sum(near(p, DARK_BAR_FILL) for p in pixels)
        print(f"bar-fill pixels in the {name}: {bars}")
        if bars < 200:
            failures.append(f"the mechanism (bar fill colour) is not in the {name}")
        seen = []
        for i, colour in enumerate(DARK_MOTIONS):
            count = sum(near(p, colour, 10) for p in pixels)
            print(f"{name}: motion colour {i} {colour}: {count} pixels")
            if count >= 40:
                seen.append(i)
        if len(seen) < args.motions:
            failures.append(f"arrows of {len(seen)} motions found in the {name}, expected {args.motions}")
    strips = [("left", 0, int(width * 0.12))]
    if not args.side_by_side:
        strips.append(("right", int(width * 0.80), width))
    for name, x0, x1 in strips:
        strip = [pixel(x, y) for y in range(int(height * 0.2), int(height * 0.9), 4) for x in range(x0, x1, 4)]
        background = sum(near(p, DARK_BACKGROUND, 2) for p in strip) / max(1, len(strip))
        print(f"{name} panel strip: {background:.0%} canvas background")
        if background > 0.5:
            failures.append(f"the {name} panel is missing")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
