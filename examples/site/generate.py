#!/usr/bin/env python3
"""Generate the altflow demo website (images + HTML pages).

Everything under examples/site/ except README.md and LICENSE is produced by
this script.  The pictures are drawn procedurally with Pillow from a fixed
random seed, so running it again reproduces the same scenes (byte-identical
output for a given Pillow version).  No third-party content is used.

Usage:
    python3 examples/site/generate.py

Requires Pillow (``pip install pillow``).
"""

from __future__ import annotations

import html
import math
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

SITE = Path(__file__).resolve().parent
IMG = SITE / "img"
ARTICLES = SITE / "articles"

SEED = 20240611
JPEG_QUALITY = 85
SUPERSAMPLE = 2  # draw at 2x and downscale, for smooth (anti-aliased) edges

RGB = tuple[int, int, int]


# ---------------------------------------------------------------------------
# Drawing helpers
# ---------------------------------------------------------------------------


def lerp(a: float, b: float, t: float) -> float:
    return a + (b - a) * t


def mix(c1: RGB, c2: RGB, t: float) -> RGB:
    return tuple(int(round(lerp(a, b, t))) for a, b in zip(c1, c2))  # type: ignore[return-value]


def vgradient(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int],
              stops: list[tuple[float, RGB]]) -> None:
    """Fill ``box`` with a vertical gradient through the colour ``stops``."""
    x0, y0, x1, y1 = box
    height = max(1, y1 - y0)
    for y in range(y0, y1):
        t = (y - y0) / height
        for (p0, c0), (p1, c1) in zip(stops, stops[1:]):
            if p0 <= t <= p1:
                color = mix(c0, c1, (t - p0) / max(1e-9, p1 - p0))
                break
        else:
            color = stops[-1][1]
        draw.line([(x0, y), (x1, y)], fill=color)


def circle(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill, outline=None, width=1) -> None:
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=fill, outline=outline, width=width)


def wave_polygon(w: int, h: int, base: float, amp: float, freq: float, phase: float,
                 harmonics: int = 2) -> list[tuple[float, float]]:
    """Polygon of a wavy horizon line at height ``base`` closed along the bottom edge."""
    pts = []
    steps = 120
    for i in range(steps + 1):
        x = w * i / steps
        y = base
        for k in range(1, harmonics + 1):
            y += (amp / k) * math.sin(freq * k * x / w * 2 * math.pi + phase * k)
        pts.append((x, y))
    pts += [(w, h), (0, h)]
    return pts


def glow(img: Image.Image, cx: float, cy: float, r: float, color: RGB, strength: int = 120) -> Image.Image:
    """Soft radial glow (blurred disc) composited over ``img``."""
    layer = Image.new("RGBA", img.size, color + (0,))
    d = ImageDraw.Draw(layer)
    circle(d, cx, cy, r, color + (strength,))
    layer = layer.filter(ImageFilter.GaussianBlur(r * 0.6))
    return Image.alpha_composite(img.convert("RGBA"), layer).convert("RGB")


def mountain_range(draw: ImageDraw.ImageDraw, rng: random.Random, w: int, base: float,
                   peaks: int, min_h: float, max_h: float, color: RGB,
                   snow: RGB | None = None, snow_frac: float = 0.3) -> None:
    """Draw a row of triangular peaks resting on ``base``; optionally snow-capped."""
    spacing = w / peaks
    for i in range(peaks + 1):
        px = i * spacing + rng.uniform(-0.3, 0.3) * spacing
        height = rng.uniform(min_h, max_h)
        half = rng.uniform(0.7, 1.1) * spacing
        left, right, top = (px - half, base), (px + half, base), (px, base - height)
        draw.polygon([left, top, right], fill=color)
        if snow is not None:
            f = snow_frac
            lx, ly = lerp(top[0], left[0], f), lerp(top[1], left[1], f)
            rx, ry = lerp(top[0], right[0], f), lerp(top[1], right[1], f)
            jag = []
            n = 5
            for j in range(n + 1):
                t = j / n
                x = lerp(rx, lx, t)
                y = lerp(ry, ly, t) + (height * 0.05 if j % 2 else 0)
                jag.append((x, y))
            draw.polygon([top] + jag, fill=snow)


def sailboat(draw: ImageDraw.ImageDraw, x: float, water_y: float, size: float,
             hull: RGB, sail: RGB, mast: RGB = (70, 50, 40)) -> None:
    """A simple sailing boat whose hull sits on ``water_y`` centred at ``x``."""
    hw = size * 0.55
    draw.polygon([(x - hw, water_y - size * 0.18), (x + hw, water_y - size * 0.18),
                  (x + hw * 0.7, water_y + size * 0.02), (x - hw * 0.7, water_y + size * 0.02)], fill=hull)
    mast_top = water_y - size * 1.25
    draw.line([(x, water_y - size * 0.18), (x, mast_top)], fill=mast, width=max(2, int(size * 0.03)))
    draw.polygon([(x + size * 0.03, mast_top + size * 0.05), (x + size * 0.03, water_y - size * 0.25),
                  (x + hw * 0.9, water_y - size * 0.25)], fill=sail)
    draw.polygon([(x - size * 0.03, mast_top + size * 0.2), (x - size * 0.03, water_y - size * 0.25),
                  (x - hw * 0.6, water_y - size * 0.25)], fill=sail)


def pine(draw: ImageDraw.ImageDraw, x: float, ground: float, height: float, color: RGB) -> None:
    """A pine tree made of three stacked triangles on a brown trunk."""
    trunk_w = height * 0.06
    draw.rectangle([x - trunk_w, ground - height * 0.15, x + trunk_w, ground], fill=(90, 60, 35))
    for k in range(3):
        top = ground - height * (1.0 - k * 0.22)
        bottom = ground - height * (0.45 - k * 0.15)
        half = height * (0.18 + k * 0.07)
        draw.polygon([(x, top), (x - half, bottom), (x + half, bottom)], fill=color)


# ---------------------------------------------------------------------------
# Scenes.  Each takes (width, height, rng) and returns an RGB image.
# ---------------------------------------------------------------------------


def scene_sunset_sea(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    horizon = int(h * 0.62)
    vgradient(d, (0, 0, w, horizon), [(0, (58, 30, 92)), (0.55, (214, 96, 80)), (1, (255, 196, 110))])
    img = glow(img, w * 0.5, horizon, h * 0.22, (255, 170, 80), 160)
    d = ImageDraw.Draw(img)
    circle(d, w * 0.5, horizon, h * 0.11, (255, 150, 40))
    # purple clouds
    layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
    ld = ImageDraw.Draw(layer)
    for _ in range(7):
        cx, cy = rng.uniform(0, w), rng.uniform(h * 0.08, h * 0.4)
        cw, ch = rng.uniform(w * 0.12, w * 0.3), rng.uniform(h * 0.02, h * 0.05)
        ld.ellipse([cx - cw, cy - ch, cx + cw, cy + ch], fill=(110, 60, 130, 170))
    layer = layer.filter(ImageFilter.GaussianBlur(h * 0.01))
    img = Image.alpha_composite(img.convert("RGBA"), layer).convert("RGB")
    d = ImageDraw.Draw(img)
    vgradient(d, (0, horizon, w, h), [(0, (40, 50, 110)), (1, (12, 18, 50))])
    # reflection of the sun on the water
    for i in range(26):
        y = horizon + 6 + i * (h - horizon) / 28
        half = w * (0.09 - i * 0.0025) * rng.uniform(0.7, 1.2)
        d.line([(w * 0.5 - half, y), (w * 0.5 + half, y)], fill=(255, 160, 70), width=max(2, h // 250))
    return img


def scene_mountains_snow(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    vgradient(d, (0, 0, w, h), [(0, (40, 110, 200)), (0.7, (150, 200, 240)), (1, (200, 225, 245))])
    mountain_range(d, rng, w, h * 0.8, 4, h * 0.35, h * 0.55, (120, 135, 160), (245, 248, 255), 0.32)
    mountain_range(d, rng, w, h * 0.95, 3, h * 0.3, h * 0.45, (80, 90, 110), (235, 240, 250), 0.25)
    d.rectangle([0, h * 0.9, w, h], fill=(70, 95, 70))
    return img


def scene_red_boat(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    horizon = int(h * 0.55)
    vgradient(d, (0, 0, w, horizon), [(0, (250, 150, 120)), (0.7, (255, 190, 120)), (1, (255, 220, 150))])
    img = glow(img, w * 0.75, horizon - h * 0.05, h * 0.12, (255, 230, 160), 200)
    d = ImageDraw.Draw(img)
    circle(d, w * 0.75, horizon - h * 0.05, h * 0.06, (255, 200, 90))
    d.polygon([(0, horizon), (w * 0.3, horizon - h * 0.08), (w * 0.55, horizon)], fill=(110, 90, 120))
    vgradient(d, (0, horizon, w, h), [(0, (70, 130, 200)), (1, (25, 70, 140))])
    x, water = w * 0.42, h * 0.72
    size = h * 0.35
    boat = Image.new("RGBA", img.size, (0, 0, 0, 0))
    sailboat(ImageDraw.Draw(boat), x, water, size, (200, 30, 35), (220, 45, 45))
    # faint, blurred mirror image of the boat on the water
    top = int(water - size * 1.3)
    refl = boat.crop((0, top, w, int(water))).transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    refl.putalpha(refl.getchannel("A").point(lambda a: a * 35 // 100))
    refl = refl.filter(ImageFilter.GaussianBlur(h * 0.006))
    base = img.convert("RGBA")
    base.alpha_composite(refl, (0, int(water)))
    base.alpha_composite(boat)
    img = base.convert("RGB")
    d = ImageDraw.Draw(img)
    for i in range(12):
        y = water + 8 + i * h * 0.02
        d.line([(x - w * 0.12, y), (x + w * 0.12, y)], fill=(80, 140, 205), width=max(1, h // 400))
    return img


def scene_harbour_boats(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    horizon = int(h * 0.5)
    vgradient(d, (0, 0, w, horizon), [(0, (90, 160, 220)), (1, (200, 225, 240))])
    # houses on the far shore
    x = 0.0
    while x < w:
        bw = rng.uniform(w * 0.04, w * 0.08)
        bh = rng.uniform(h * 0.05, h * 0.12)
        col = rng.choice([(230, 200, 160), (200, 110, 90), (240, 230, 210), (170, 190, 200)])
        d.rectangle([x, horizon - bh, x + bw, horizon], fill=col)
        d.polygon([(x - 3, horizon - bh), (x + bw / 2, horizon - bh - bw * 0.4), (x + bw + 3, horizon - bh)],
                  fill=(150, 70, 60))
        x += bw + rng.uniform(2, w * 0.02)
    vgradient(d, (0, horizon, w, h), [(0, (60, 120, 160)), (1, (30, 80, 120))])
    # wooden pier
    d.rectangle([0, h * 0.78, w * 0.35, h * 0.82], fill=(120, 85, 55))
    for px in range(0, int(w * 0.35), max(10, w // 20)):
        d.rectangle([px, h * 0.82, px + w * 0.01, h], fill=(95, 65, 40))
    for bx, by, s, col in [(0.5, 0.68, 0.22, (40, 70, 140)), (0.72, 0.62, 0.16, (220, 220, 215)),
                           (0.88, 0.74, 0.26, (30, 110, 90))]:
        sailboat(d, w * bx, h * by, h * s, col, (250, 250, 248))
    return img


def scene_forest_pines(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    vgradient(d, (0, 0, w, h), [(0, (160, 200, 235)), (1, (225, 238, 245))])
    d.ellipse([-w * 0.6, h * 0.55, w * 1.6, h * 1.6], fill=(110, 170, 80))
    d.rectangle([0, h * 0.85, w, h], fill=(95, 155, 70))
    n = 6
    for i in range(n):
        x = w * (i + 0.5) / n + rng.uniform(-w * 0.02, w * 0.02)
        dx = (x - w / 2) / (w * 1.1)
        ground = h * 0.55 + h * 1.05 * (1 - math.sqrt(max(0.0, 1 - dx * dx * 4))) * 0.5 + h * 0.02
        pine(d, x, ground, rng.uniform(h * 0.3, h * 0.42), (25, 80, 45))
    return img


def scene_night_moon(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    vgradient(d, (0, 0, w, h), [(0, (5, 8, 30)), (1, (30, 40, 85))])
    for _ in range(220):
        x, y = rng.uniform(0, w), rng.uniform(0, h * 0.75)
        r = rng.choice([1, 1, 1, 2, 2, 3]) * h / 600
        b = rng.randint(170, 255)
        circle(d, x, y, r, (b, b, min(255, b + 10)))
    img = glow(img, w * 0.7, h * 0.25, h * 0.16, (230, 230, 200), 110)
    d = ImageDraw.Draw(img)
    circle(d, w * 0.7, h * 0.25, h * 0.09, (245, 240, 210))
    for _ in range(4):  # craters
        circle(d, w * 0.7 + rng.uniform(-h * 0.05, h * 0.05), h * 0.25 + rng.uniform(-h * 0.05, h * 0.05),
               h * rng.uniform(0.008, 0.018), (225, 220, 190))
    d.polygon(wave_polygon(w, h, h * 0.72, h * 0.05, 1.2, 0.4), fill=(20, 25, 40))
    d.polygon(wave_polygon(w, h, h * 0.82, h * 0.04, 2.0, 1.7), fill=(10, 12, 22))
    return img


def scene_desert_dunes(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    vgradient(d, (0, 0, w, h), [(0, (150, 195, 230)), (0.5, (240, 240, 235)), (1, (250, 240, 220))])
    img = glow(img, w * 0.25, h * 0.2, h * 0.2, (255, 255, 245), 220)
    d = ImageDraw.Draw(img)
    circle(d, w * 0.25, h * 0.2, h * 0.07, (255, 255, 250))
    layers = [(0.55, (225, 180, 100)), (0.66, (215, 160, 80)), (0.78, (200, 140, 60)), (0.9, (185, 120, 50))]
    for i, (base, col) in enumerate(layers):
        d.polygon(wave_polygon(w, h, h * base, h * 0.05, 1.0 + i * 0.4, rng.uniform(0, 6)), fill=col)
    return img


def scene_lighthouse(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    horizon = int(h * 0.6)
    vgradient(d, (0, 0, w, horizon), [(0, (70, 140, 210)), (1, (190, 220, 240))])
    vgradient(d, (0, horizon, w, h), [(0, (40, 110, 160)), (1, (20, 60, 100))])
    # rocks
    rocks = [(0.55, 0.72, 0.5), (0.2, 0.8, 0.35), (0.85, 0.82, 0.3), (0.5, 0.9, 0.55)]
    for cx, cy, s in rocks:
        pts = []
        for k in range(9):
            a = math.pi + k * math.pi / 8
            r = w * s * rng.uniform(0.8, 1.0)
            pts.append((w * cx + r * math.cos(a), h * cy + r * 0.45 * math.sin(a)))
        pts.append((w * cx + w * s, h))
        pts.append((w * cx - w * s, h))
        d.polygon(pts, fill=rng.choice([(95, 90, 85), (110, 105, 100), (80, 78, 75)]))
    # tower
    base_y, top_y = h * 0.72, h * 0.22
    bw, tw = w * 0.13, w * 0.085
    cx = w * 0.55
    stripes = 6
    for i in range(stripes):
        y0 = lerp(base_y, top_y, i / stripes)
        y1 = lerp(base_y, top_y, (i + 1) / stripes)
        hw0 = lerp(bw, tw, i / stripes)
        hw1 = lerp(bw, tw, (i + 1) / stripes)
        col = (210, 35, 40) if i % 2 == 0 else (250, 250, 250)
        d.polygon([(cx - hw0, y0), (cx + hw0, y0), (cx + hw1, y1), (cx - hw1, y1)], fill=col)
    d.rectangle([cx - tw * 1.2, top_y - h * 0.012, cx + tw * 1.2, top_y], fill=(30, 30, 30))
    d.rectangle([cx - tw * 0.7, top_y - h * 0.07, cx + tw * 0.7, top_y - h * 0.012], fill=(255, 230, 120))
    d.polygon([(cx - tw * 0.9, top_y - h * 0.07), (cx + tw * 0.9, top_y - h * 0.07), (cx, top_y - h * 0.11)],
              fill=(30, 30, 30))
    img = glow(img, cx, top_y - h * 0.04, w * 0.12, (255, 240, 170), 120)
    return img


def scene_balloons(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    vgradient(d, (0, 0, w, h), [(0, (120, 180, 235)), (0.7, (230, 215, 210)), (1, (255, 215, 170))])
    d.polygon(wave_polygon(w, h, h * 0.93, h * 0.015, 1.5, 0.3), fill=(90, 140, 80))
    palettes = [[(230, 50, 50), (250, 200, 40)], [(40, 90, 200), (250, 250, 250)],
                [(40, 170, 90), (250, 140, 30)], [(150, 60, 170), (250, 220, 60)], [(240, 110, 30), (40, 140, 200)]]
    specs = [(0.3, 0.3, 0.16), (0.72, 0.2, 0.11), (0.62, 0.55, 0.2), (0.18, 0.7, 0.08), (0.88, 0.62, 0.07)]
    for (bx, by, s), pal in zip(specs, palettes):
        cx, cy, r = w * bx, h * by, w * s
        # envelope in vertical segments of alternating colours
        env = Image.new("L", img.size, 0)
        ImageDraw.Draw(env).ellipse([cx - r, cy - r * 1.15, cx + r, cy + r * 1.0], fill=255)
        ImageDraw.Draw(env).polygon([(cx - r * 0.86, cy + r * 0.5), (cx + r * 0.86, cy + r * 0.5),
                                     (cx + r * 0.3, cy + r * 1.45), (cx - r * 0.3, cy + r * 1.45)], fill=255)
        stripes = Image.new("RGB", img.size)
        sd = ImageDraw.Draw(stripes)
        n = 8
        for k in range(n):
            x0 = cx - r + 2 * r * k / n
            sd.rectangle([x0, 0, x0 + 2 * r / n, h], fill=pal[k % 2])
        img.paste(stripes, (0, 0), env)
        d = ImageDraw.Draw(img)
        d.line([(cx - r * 0.3, cy + r * 1.45), (cx - r * 0.18, cy + r * 1.75)], fill=(60, 40, 30), width=2)
        d.line([(cx + r * 0.3, cy + r * 1.45), (cx + r * 0.18, cy + r * 1.75)], fill=(60, 40, 30), width=2)
        d.rectangle([cx - r * 0.2, cy + r * 1.75, cx + r * 0.2, cy + r * 2.0], fill=(140, 95, 50))
    return img


def scene_city_skyline(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    vgradient(d, (0, 0, w, h), [(0, (40, 30, 90)), (0.55, (190, 90, 110)), (0.85, (250, 160, 90)), (1, (250, 190, 110))])
    for layer, (col, min_h, max_h) in enumerate([((95, 95, 115), 0.3, 0.55), ((70, 72, 85), 0.2, 0.7)]):
        x = rng.uniform(-w * 0.03, 0)
        while x < w:
            bw = rng.uniform(w * 0.05, w * 0.1)
            bh = h * rng.uniform(min_h, max_h)
            top = h - bh
            d.rectangle([x, top, x + bw, h], fill=col)
            if layer == 1:
                wx, wy = w * 0.012, h * 0.018
                for yy in range(int(top + wy), h - int(wy), int(wy * 2)):
                    for xx in range(int(x + wx), int(x + bw - wx), int(wx * 2)):
                        if rng.random() < 0.45:
                            d.rectangle([xx, yy, xx + wx, yy + wy], fill=rng.choice([(255, 220, 120), (255, 240, 170)]))
            x += bw + rng.uniform(0, w * 0.01)
    return img


def scene_tulip_field(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    horizon = h * 0.35
    vgradient(d, (0, 0, w, int(horizon)), [(0, (90, 150, 220)), (1, (210, 230, 245))])
    d.rectangle([0, horizon, w, h], fill=(70, 130, 50))
    vx = w * 0.5
    rows = 14
    for r in range(rows):
        colour = (220, 30, 40) if r % 2 == 0 else (250, 210, 30)
        x_bottom0 = (r / rows) * w * 3 - w
        x_bottom1 = ((r + 0.55) / rows) * w * 3 - w
        d.polygon([(vx + (r - rows / 2) * 2, horizon), (vx + (r + 0.55 - rows / 2) * 2, horizon),
                   (x_bottom1, h), (x_bottom0, h)], fill=colour)
    # individual blooms near the viewer
    for _ in range(260):
        y = rng.uniform(h * 0.7, h)
        t = (y - horizon) / (h - horizon)
        x = rng.uniform(0, w)
        s = 4 + 14 * t
        # which row are we in?
        rel = (x - vx) / max(1e-6, t) + vx
        r = int((rel + w) / (w * 3) * rows)
        colour = (235, 45, 55) if r % 2 == 0 else (255, 220, 50)
        d.ellipse([x - s * 0.5, y - s, x + s * 0.5, y], fill=colour)
    return img


def scene_river_valley(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    horizon = h * 0.4
    vgradient(d, (0, 0, w, int(horizon) + 2), [(0, (110, 170, 230)), (1, (215, 232, 245))])
    mountain_range(d, rng, w, horizon + h * 0.02, 5, h * 0.08, h * 0.16, (120, 150, 130))
    d.rectangle([0, horizon, w, h], fill=(100, 165, 70))
    d.polygon(wave_polygon(w, h, h * 0.55, h * 0.03, 1.3, 2.0), fill=(85, 150, 60))
    d.polygon(wave_polygon(w, h, h * 0.72, h * 0.03, 0.9, 0.5), fill=(70, 135, 50))
    # winding river: sample a centreline from the horizon to the bottom edge
    left, right = [], []
    steps = 80
    for i in range(steps + 1):
        t = i / steps
        y = lerp(horizon + 4, h, t)
        cx = w * 0.5 + w * 0.25 * math.sin(t * 3.2 * math.pi + 0.6) * t
        half = lerp(w * 0.005, w * 0.12, t ** 1.3)
        left.append((cx - half, y))
        right.append((cx + half, y))
    d.polygon(left + right[::-1], fill=(60, 120, 200))
    d.line(right, fill=(150, 200, 240), width=max(1, w // 400))
    return img


def scene_rainbow(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    vgradient(d, (0, 0, w, h), [(0, (100, 110, 130)), (0.6, (185, 200, 215)), (1, (220, 230, 235))])
    cx, cy = w * 0.5, h * 0.8
    colours = [(230, 40, 40), (245, 140, 30), (245, 225, 40), (60, 170, 70), (50, 110, 210), (80, 60, 160),
               (140, 70, 180)]
    band = h * 0.025
    layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
    ld = ImageDraw.Draw(layer)
    for i, col in enumerate(colours):
        r = h * 0.6 - i * band
        ld.arc([cx - r, cy - r, cx + r, cy + r], 180, 360, fill=col + (190,), width=int(band) + 1)
    layer = layer.filter(ImageFilter.GaussianBlur(band * 0.3))
    img = Image.alpha_composite(img.convert("RGBA"), layer).convert("RGB")
    d = ImageDraw.Draw(img)
    d.polygon(wave_polygon(w, h, h * 0.68, h * 0.03, 1.1, 0.9), fill=(110, 170, 70))
    d.polygon(wave_polygon(w, h, h * 0.8, h * 0.025, 1.7, 2.4), fill=(80, 145, 55))
    return img


def scene_blue_circles(w, h, rng):
    img = Image.new("RGB", (w, h), (235, 240, 248))
    d = ImageDraw.Draw(img)
    for _ in range(40):
        r = rng.uniform(w * 0.03, w * 0.14)
        shade = rng.randint(0, 4)
        col = [(20, 60, 160), (40, 100, 200), (70, 140, 230), (120, 180, 240), (30, 40, 110)][shade]
        circle(d, rng.uniform(0, w), rng.uniform(0, h), r, col)
    return img


def scene_stripes(w, h, rng):
    img = Image.new("RGB", (w, h), (250, 140, 40))
    d = ImageDraw.Draw(img)
    band = w / 12
    for k in range(-20, 30, 2):
        x = k * band
        d.polygon([(x, 0), (x + band, 0), (x + band - h, h), (x - h, h)], fill=(20, 150, 150))
    return img


def scene_snowman(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    vgradient(d, (0, 0, w, h), [(0, (170, 190, 215)), (0.65, (215, 225, 235)), (1, (245, 248, 252))])
    d.ellipse([-w * 0.5, h * 0.62, w * 1.5, h * 1.5], fill=(248, 250, 255))
    # garden fence
    for x in range(0, w, max(12, w // 14)):
        d.rectangle([x, h * 0.55, x + w * 0.03, h * 0.68], fill=(150, 110, 75))
    d.rectangle([0, h * 0.58, w, h * 0.6], fill=(140, 100, 70))
    d.ellipse([-w * 0.5, h * 0.66, w * 1.5, h * 1.5], fill=(250, 251, 255))
    cx = w * 0.5
    for cy, r in [(h * 0.78, w * 0.22), (h * 0.53, w * 0.16), (h * 0.34, w * 0.11)]:
        circle(d, cx, cy, r, (252, 252, 255), outline=(200, 210, 225), width=max(2, w // 200))
    # hat
    d.rectangle([cx - w * 0.13, h * 0.255, cx + w * 0.13, h * 0.27], fill=(25, 25, 30))
    d.rectangle([cx - w * 0.08, h * 0.16, cx + w * 0.08, h * 0.26], fill=(25, 25, 30))
    d.rectangle([cx - w * 0.08, h * 0.235, cx + w * 0.08, h * 0.25], fill=(180, 30, 40))
    # face
    for ex in (-0.04, 0.04):
        circle(d, cx + w * ex, h * 0.32, w * 0.012, (20, 20, 20))
    d.polygon([(cx, h * 0.34), (cx, h * 0.355), (cx + w * 0.13, h * 0.35)], fill=(245, 130, 30))
    for k in range(5):
        a = math.pi * (0.2 + 0.15 * k)
        circle(d, cx + w * 0.06 * math.cos(a), h * 0.36 + w * 0.04 * math.sin(a), w * 0.008, (30, 30, 30))
    # buttons and stick arms
    for by in (0.48, 0.53, 0.58):
        circle(d, cx, h * by, w * 0.012, (30, 30, 30))
    d.line([(cx - w * 0.15, h * 0.5), (cx - w * 0.38, h * 0.4)], fill=(95, 60, 35), width=max(3, w // 120))
    d.line([(cx + w * 0.15, h * 0.5), (cx + w * 0.38, h * 0.42)], fill=(95, 60, 35), width=max(3, w // 120))
    for _ in range(150):  # falling snow
        circle(d, rng.uniform(0, w), rng.uniform(0, h), rng.uniform(1.5, 4) * w / 660, (255, 255, 255))
    return img


def scene_pattern_dots(w, h, rng):
    img = Image.new("RGB", (w, h), (236, 228, 212))
    d = ImageDraw.Draw(img)
    step = w / 16
    for j in range(int(h / step) + 2):
        for i in range(17):
            off = step / 2 if j % 2 else 0
            circle(d, i * step + off, j * step, step * 0.18, (200, 190, 175))
    return img


def scene_paper_texture(w, h, rng):
    img = Image.new("RGB", (w, h), (245, 240, 228))
    d = ImageDraw.Draw(img)
    for y in range(0, h, max(4, h // 30)):
        d.line([(0, y), (w, y)], fill=(230, 225, 210), width=1)
    d.line([(w * 0.1, 0), (w * 0.1, h)], fill=(235, 190, 190), width=2)
    return img


def scene_icon_small(w, h, rng):
    img = Image.new("RGB", (w, h), (20, 35, 90))
    d = ImageDraw.Draw(img)
    cx, cy, r = w / 2, h / 2, h * 0.25
    for k in range(12):
        a = k * math.pi / 6
        d.line([(cx + r * 1.2 * math.cos(a), cy + r * 1.2 * math.sin(a)),
                (cx + r * 1.7 * math.cos(a), cy + r * 1.7 * math.sin(a))], fill=(255, 210, 40), width=max(2, w // 40))
    circle(d, cx, cy, r, (255, 210, 40))
    return img


def scene_banner_wide(w, h, rng):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    horizon = h * 0.55
    vgradient(d, (0, 0, w, int(horizon) + 2), [(0, (100, 170, 230)), (1, (220, 235, 245))])
    vgradient(d, (0, int(horizon), w, h), [(0, (50, 130, 170)), (1, (25, 80, 120))])
    # green headlands along the coast
    pts = [(0, h)]
    for i in range(101):
        x = w * i / 100
        y = horizon - h * 0.25 * max(0.0, math.sin(i / 100 * 5 * math.pi + 0.3)) ** 0.6
        pts.append((x, y + h * 0.12 * (i / 100)))
    pts.append((w, h))
    d.polygon(pts, fill=(70, 140, 70))
    d.polygon(wave_polygon(w, h, h * 0.9, h * 0.02, 6, 0.2), fill=(225, 205, 150))
    return img


def draw_diagram(w, h):
    """Bar chart with axes; saved as PNG (flat colours, few edges)."""
    img = Image.new("RGB", (w, h), (255, 255, 255))
    d = ImageDraw.Draw(img)
    left, bottom, top, right = w * 0.1, h * 0.88, h * 0.08, w * 0.95
    for k in range(5):  # grid lines
        y = lerp(bottom, top, k / 4)
        d.line([(left, y), (right, y)], fill=(225, 225, 225), width=2)
    d.line([(left, top), (left, bottom), (right, bottom)], fill=(40, 40, 40), width=4)
    values = [0.45, 0.8, 0.6, 0.95, 0.3]
    colours = [(230, 80, 70), (70, 140, 220), (90, 180, 90), (245, 180, 40), (150, 90, 190)]
    slot = (right - left) / len(values)
    for i, (v, c) in enumerate(zip(values, colours)):
        x0 = left + slot * i + slot * 0.2
        d.rectangle([x0, lerp(bottom, top, v), x0 + slot * 0.6, bottom - 2], fill=c)
    return img


# ---------------------------------------------------------------------------
# Inventory: every image, where it is used and what its alt text says.
# ---------------------------------------------------------------------------

# name -> (scene function, width, height, alt text)
JPEGS = {
    "sunset-sea.jpg": (scene_sunset_sea, 1200, 800,
                       "an orange sun setting over a calm sea under purple clouds"),
    "mountains-snow.jpg": (scene_mountains_snow, 1024, 768,
                           "snow capped mountains under a clear blue sky"),
    "red-boat.jpg": (scene_red_boat, 960, 720,
                     "a red sailing boat on a calm blue lake at sunset"),
    "harbour-boats.jpg": (scene_harbour_boats, 1200, 900,
                          "three small boats with white sails in a quiet harbour"),
    "forest-pines.jpg": (scene_forest_pines, 600, 800,
                         "a row of dark green pine trees on a grassy hill"),
    "night-moon.jpg": (scene_night_moon, 800, 600,
                       "a full moon and bright stars above dark rolling hills"),
    "desert-dunes.jpg": (scene_desert_dunes, 1000, 625,
                         "golden sand dunes under a hot white sun"),
    "lighthouse.jpg": (scene_lighthouse, 720, 960,
                       "a red and white striped lighthouse on a rocky coast"),
    "balloons.jpg": (scene_balloons, 675, 900,
                     "colourful hot air balloons floating in a bright morning sky"),
    "city-skyline.jpg": (scene_city_skyline, 1200, 675,
                         "a city skyline of tall grey buildings with lit windows at dusk"),
    "tulip-field.jpg": (scene_tulip_field, 1024, 683,
                        "rows of red and yellow tulips stretching toward the horizon"),
    "river-valley.jpg": (scene_river_valley, 900, 675,
                         "a winding blue river flowing through a green valley"),
    "rainbow.jpg": (scene_rainbow, 1000, 750,
                    "a rainbow arching over green fields after the rain"),
    "blue-circles.jpg": (scene_blue_circles, 800, 800,
                         "blue circles"),
    "stripes.jpg": (scene_stripes, 800, 600,
                    "a pattern of diagonal orange and teal stripes"),
    "snowman.jpg": (scene_snowman, 660, 880,
                    "a smiling snowman with a carrot nose in a snowy garden"),
    # valid images that appear without usable alt text
    "pattern-dots.jpg": (scene_pattern_dots, 800, 600, None),     # <img> without alt attribute
    "paper-texture.jpg": (scene_paper_texture, 800, 600, ""),     # alt=""
    # valid images that fail the size / aspect-ratio filters
    "icon-small.jpg": (scene_icon_small, 120, 90,
                       "a small yellow sun icon on a dark blue square"),
    "banner-wide.jpg": (scene_banner_wide, 1800, 400,
                        "a long panoramic banner of a green coastline beside the sea"),
}

DIAGRAM_ALT = "a simple bar chart with five coloured bars of different heights"
NOT_AN_IMAGE_ALT = "a photograph of a green parrot sitting on a branch"
MISSING_ALT = "a black cat sleeping on a sunny windowsill"
LOGO_ALT = "Altflow Demo Gallery logo"

NOT_AN_IMAGE_TEXT = (
    "This file is named not-really.jpg but it is plain text, not an image.\n"
    "It is part of the altflow demo site and exists to check that the pipeline\n"
    "rejects downloads that cannot be decoded as images.\n"
)


def render_images(rng: random.Random) -> None:
    IMG.mkdir(parents=True, exist_ok=True)
    for name, (scene, w, h, _alt) in JPEGS.items():
        big = scene(w * SUPERSAMPLE, h * SUPERSAMPLE, rng)
        img = big.resize((w, h), Image.Resampling.LANCZOS)
        img.save(IMG / name, "JPEG", quality=JPEG_QUALITY, optimize=True)
    diagram = draw_diagram(800 * SUPERSAMPLE, 600 * SUPERSAMPLE).resize((800, 600), Image.Resampling.LANCZOS)
    diagram = diagram.quantize(colors=64)  # keeps the PNG small
    diagram.save(IMG / "diagram.png", "PNG", optimize=True)
    (IMG / "not-really.jpg").write_text(NOT_AN_IMAGE_TEXT, encoding="utf-8")


# ---------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------

STYLE = """\
    body { font-family: Georgia, serif; max-width: 52rem; margin: 0 auto; padding: 0 1rem; color: #222; }
    header nav { display: flex; gap: 1rem; align-items: center; border-bottom: 1px solid #ccc; padding: .5rem 0; }
    figure { margin: 1.5rem 0; }
    figure img { max-width: 100%; height: auto; }
    figcaption { font-size: .9rem; color: #555; }
    footer { border-top: 1px solid #ccc; margin-top: 2rem; padding: 1rem 0; font-size: .85rem; color: #666; }"""

# (file stem, title, short label for the navigation bar) in reading order
ARTICLE_LIST = [
    ("sea-and-boats", "By the Sea: Boats and Lighthouses", "Sea"),
    ("mountains", "High Mountains and Green Valleys", "Mountains"),
    ("night-and-winter", "Winter Nights and City Lights", "Winter"),
    ("countryside", "Fields, Dunes and Balloons", "Countryside"),
    ("shapes", "Shapes, Stripes and Charts", "Shapes"),
]


def esc(text: str) -> str:
    return html.escape(text, quote=True)


def img_tag(src: str, alt: str | None, w: int, h: int, extra: str = "") -> str:
    alt_attr = "" if alt is None else f' alt="{esc(alt)}"'
    return f'<img src="{esc(src)}"{alt_attr} width="{w}" height="{h}"{extra}>'


def figure(src: str, name: str, caption: str, alt_override: str | None | bool = False) -> str:
    """A <figure> for image ``name`` (alt text from the inventory unless overridden)."""
    if name == "diagram.png":
        w, h, alt = 800, 600, DIAGRAM_ALT
    elif name in JPEGS:
        _, w, h, alt = JPEGS[name]
    else:  # not an image / missing: declared display size only
        w, h, alt = 800, 600, None
    if alt_override is not False:
        alt = alt_override  # type: ignore[assignment]
    tag = img_tag(src, alt, w, h, ' loading="lazy"')
    return ("    <figure>\n"
            f"      {tag}\n"
            f"      <figcaption>{esc(caption)}</figcaption>\n"
            "    </figure>")


def page(title: str, root: str, body: str, base: str | None = None, nav_root: str | None = None) -> str:
    """Wrap ``body`` in the common page layout.

    ``root`` is the relative path from the page to the site root (used for all
    links and image sources).  With ``base`` set, a <base href> is emitted and
    ``root`` should be "" because URLs then resolve against the base.
    """
    base_tag = f'  <base href="{esc(base)}">\n' if base else ""
    nav_links = "\n".join(
        f'      <a href="{root}articles/{stem}.html">{esc(label)}</a>' for stem, _, label in ARTICLE_LIST)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
{base_tag}  <title>{esc(title)} | Altflow Demo Gallery</title>
  <style>
{STYLE}
  </style>
</head>
<body>
  <header>
    <nav>
      <a href="{root}index.html">{img_tag(root + "img/icon-small.jpg", LOGO_ALT, 60, 45)}</a>
      <a href="{root}index.html">Home</a>
{nav_links}
    </nav>
  </header>
  <main>
{body}
  </main>
  <footer>
    <p>All pictures on this site were drawn by a small Python script for the altflow project
    and are dedicated to the public domain (CC0).</p>
  </footer>
</body>
</html>
"""


def article_nav(root: str, stem: str, sibling: str = "") -> str:
    """Previous/next/index links; ``sibling`` is the prefix that reaches other articles."""
    stems = [s for s, _, _ in ARTICLE_LIST]
    i = stems.index(stem)
    parts = []
    if i > 0:
        parts.append(f'<a href="{sibling}{stems[i - 1]}.html">&larr; Previous article</a>')
    if i + 1 < len(stems):
        parts.append(f'<a href="{sibling}{stems[i + 1]}.html">Next article &rarr;</a>')
    parts.append(f'<a href="{root}index.html">Back to the index</a>')
    return "    <p>" + " | ".join(parts) + "</p>"


def build_pages() -> dict[str, str]:
    pages: dict[str, str] = {}

    # --- index ---------------------------------------------------------------
    links = "\n".join(f'      <li><a href="articles/{stem}.html">{esc(t)}</a></li>' for stem, t, _ in ARTICLE_LIST)
    body = f"""    <h1>Altflow Demo Gallery</h1>
    <p>Welcome to a tiny picture gallery. Every picture here was drawn by a computer
    program using nothing but gradients, circles and polygons, and every picture comes
    with a short description in its alt text. The site is used to test the altflow
    crawler end to end.</p>
{figure("img/sunset-sea.jpg", "sunset-sea.jpg", "Evening over the sea.")}
    <h2>Articles</h2>
    <ul>
{links}
    </ul>
{figure("img/red-boat.jpg", "red-boat.jpg", "Our favourite boat, also featured in the first article.")}"""
    pages["index.html"] = page("Welcome", "", body)

    # --- articles ------------------------------------------------------------
    r = "../"
    body = f"""    <h1>By the Sea: Boats and Lighthouses</h1>
{figure(r + "img/banner-wide.jpg", "banner-wide.jpg", "The coast, seen from the cliffs.")}
    <p>Nothing says summer like a calm lake and a boat with its sails up.</p>
{figure(r + "img/red-boat.jpg", "red-boat.jpg", "The red boat, on its evening trip.")}
    <p>In the harbour, smaller boats wait for the wind.</p>
{figure(r + "img/harbour-boats.jpg", "harbour-boats.jpg", "The old harbour.")}
{figure(r + "img/lighthouse.jpg", "lighthouse.jpg", "The lighthouse keeps watch over the rocks.")}
    <p>We also meant to show you the harbour cat, but the picture has gone missing.</p>
{figure(r + "img/missing.jpg", "missing.jpg", "The harbour cat.", MISSING_ALT)}
{article_nav(r, "sea-and-boats")}"""
    pages["articles/sea-and-boats.html"] = page("By the Sea", r, body)

    body = f"""    <h1>High Mountains and Green Valleys</h1>
    <p>Up in the mountains the air is thin and the snow never quite melts.</p>
{figure(r + "img/mountains-snow.jpg", "mountains-snow.jpg", "The high peaks in spring.")}
{figure(r + "img/forest-pines.jpg", "forest-pines.jpg", "Pines on the lower slopes.")}
    <p>Further down, a river winds its way through the valley.</p>
{figure(r + "img/river-valley.jpg", "river-valley.jpg", "The valley floor.")}
    <div class="divider">{img_tag(r + "img/pattern-dots.jpg", None, 800, 600)}</div>
{figure(r + "img/rainbow.jpg", "rainbow.jpg", "After the storm.")}
{article_nav(r, "mountains")}"""
    pages["articles/mountains.html"] = page("Mountains", r, body)

    body = f"""    <h1>Winter Nights and City Lights</h1>
    <p>On clear winter nights the moon lights up the hills.</p>
{figure(r + "img/night-moon.jpg", "night-moon.jpg", "Moonrise.")}
{figure(r + "img/city-skyline.jpg", "city-skyline.jpg", "The city as the lights come on.")}
    <div class="background">{img_tag(r + "img/paper-texture.jpg", "", 800, 600)}</div>
{figure(r + "img/snowman.jpg", "snowman.jpg", "Built this morning.")}
    <p>A reader sent us a parrot picture, but the file seems to be broken.</p>
{figure(r + "img/not-really.jpg", "not-really.jpg", "A parrot, apparently.", NOT_AN_IMAGE_ALT)}
    <p>For more about domain names used in examples, see
    <a href="https://example.com/">example.com</a>.</p>
{article_nav(r, "night-and-winter")}"""
    pages["articles/night-and-winter.html"] = page("Winter Nights", r, body)

    body = f"""    <h1>Fields, Dunes and Balloons</h1>
    <p>In spring the tulip farms turn the countryside into stripes of colour.</p>
{figure(r + "img/tulip-field.jpg", "tulip-field.jpg", "Tulip season.")}
{figure(r + "img/desert-dunes.jpg", "desert-dunes.jpg", "Far away, the desert.")}
    <p>Early in the morning the balloon festival begins.</p>
{figure(r + "img/balloons.jpg", "balloons.jpg", "Lift off.")}
    <p>Our sunny-day icon: {img_tag(r + "img/icon-small.jpg", JPEGS["icon-small.jpg"][3], 120, 90)}</p>
{article_nav(r, "countryside")}"""
    pages["articles/countryside.html"] = page("Countryside", r, body)

    # This page uses <base href="../">: every relative URL resolves against the
    # site root, not against articles/.
    body = f"""    <h1>Shapes, Stripes and Charts</h1>
    <p>Not every picture needs to be a landscape. (This page sets
    <code>&lt;base href="../"&gt;</code>, so its links are written relative to the site root.)</p>
{figure("img/blue-circles.jpg", "blue-circles.jpg", "Circles.")}
{figure("img/stripes.jpg", "stripes.jpg", "Stripes.")}
{figure("img/diagram.png", "diagram.png", "How many pictures each article has, roughly.")}
{article_nav("", "shapes", sibling="articles/")}"""
    pages["articles/shapes.html"] = page("Shapes", "", body, base="../")

    return pages


def main() -> None:
    rng = random.Random(SEED)
    render_images(rng)
    ARTICLES.mkdir(parents=True, exist_ok=True)
    for rel, text in build_pages().items():
        (SITE / rel).write_text(text, encoding="utf-8", newline="\n")
    total = sum(p.stat().st_size for p in SITE.rglob("*") if p.is_file())
    print(f"wrote {len(JPEGS) + 2} image files and {len(build_pages())} pages; site is {total / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
