"""The texts of a rendered SVG with their boxes, and which of them overlap."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import combinations
from pathlib import Path

from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.font_manager import FontProperties

SVG = "{http://www.w3.org/2000/svg}"


def text_boxes(path: Path) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Every <text> of the SVG with its box (x0, y0, x1, y1), measured with matplotlib's font metrics."""
    renderer = RendererAgg(10, 10, 72)
    found = []
    for element in ET.parse(path).iter(f"{SVG}text"):
        style = dict(part.split(":", 1) for part in element.get("style", "").split(";") if ":" in part)
        style = {key.strip(): value.strip() for key, value in style.items()}
        size = float(style["font-size"].removesuffix("px"))
        text = "".join(element.itertext())
        width, height, descent = renderer.get_text_width_height_descent(
            text, FontProperties(family="DejaVu Sans", size=size), ismath=False)
        x, y = float(element.get("x")), float(element.get("y"))
        anchor = style.get("text-anchor", "start")
        left = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
        found.append((text, (left, y - (height - descent), left + width, y + descent)))
    return found


def clashes(boxes: list[tuple[str, tuple[float, float, float, float]]]) -> list[tuple[str, str]]:
    return [(a, b) for (a, p), (b, q) in combinations(boxes, 2)
            if p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]]
