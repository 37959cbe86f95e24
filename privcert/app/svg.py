"""Figures the server draws (the implication map, the privacy/utility figure, Figs. 6-7), made part of a page.

A page shows a figure inline, as an ``<svg>`` element, so that its text is text (the map's
definitions are buttons). The figure is the one markup the app writes from Python, and it
is trusted because :func:`page_svg` writes it again from parts, never passing its text
through: the SVG is parsed, and only the drawing elements of :data:`ELEMENTS` with the
attributes of :data:`ATTRIBUTES` are written back, every value and text escaped (markup,
control characters and bidirectional overrides, :func:`verifier.escape.safe`); anything else (a script, an event handler, a link out, a foreign object) is
dropped with its content. A figure's labels carry the user's names (a candidate's file
name, a column), which matplotlib escapes and which are escaped again here.

The page's Content-Security-Policy allows no inline style, so each ``style`` attribute of
matplotlib's SVG becomes the presentation attributes it lists (SVG reads ``fill``,
``stroke``, ``font-size``... as attributes), and its ``<style>`` block is dropped (its
defaults are in ``app.css``, and on the root of a figure served as its own document).

A page may show several figures, and matplotlib names the parts of each alike (``figure_1``,
``axes_1``...): every ``id`` of a figure, and every reference to one (``href="#..."``,
``url(#...)``), is written with the figure's own prefix (a digest of its text), so that a page's
ids stay unique.

A figure too large to be read scaled to the page's width (the implication map) is drawn at the
size where its smallest text is ``labels`` pixels high (``page_svg(..., labels=12)``), for the
page to scroll.
"""

from __future__ import annotations

import hashlib
import math
import re
import xml.etree.ElementTree as ElementTree

from markupsafe import Markup, escape

from verifier.escape import safe

__all__ = ["page_svg", "ELEMENTS", "ATTRIBUTES", "DEFAULTS"]

ELEMENTS = frozenset({"svg", "g", "defs", "clipPath", "path", "rect", "circle", "ellipse", "line", "polyline",
                      "polygon", "text", "tspan", "use", "title", "desc"})
"""The SVG elements a figure keeps (local names): shapes, text, groups and their clip paths."""
PRESENTATION = frozenset({"fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity",
                          "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset",
                          "stroke-miterlimit", "opacity", "font-family", "font-size", "font-style", "font-weight",
                          "text-anchor", "dominant-baseline", "clip-path", "clip-rule", "visibility", "display"})
"""The presentation attributes, which a ``style`` attribute's properties become."""
ATTRIBUTES = frozenset({"id", "class", "d", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry",
                        "width", "height", "points", "transform", "viewBox", "version", "preserveAspectRatio",
                        "role", "aria-label", "aria-labelledby", "href"}) | PRESENTATION
"""The attributes a kept element keeps (``href`` only as a link inside the figure, ``#id``)."""
DEFAULTS = {"stroke-linejoin": "round", "stroke-linecap": "butt"}
"""matplotlib's ``<style>`` block (``*{stroke-linejoin: round; stroke-linecap: butt}``) as the root's presentation
attributes, which every element inherits: for a figure served as its own document, without ``app.css``."""
_SVG = "http://www.w3.org/2000/svg"
_XLINK = "http://www.w3.org/1999/xlink"


def page_svg(text: str, labels: float | None = None, standalone: bool = False, **root: str | None) -> Markup:
    """The SVG document ``text`` (drawn by the server) as an ``<svg>`` element to place in a page, written from
    :data:`ELEMENTS` and :data:`ATTRIBUTES` only, escaped; ``root`` sets (a string) or removes (``None``)
    attributes of the ``<svg>`` element (``aria_labelledby="map-title"``, ``width=None``). With ``labels``, its
    ``width`` and ``height`` are those at which its smallest text is ``labels`` pixels high (never smaller than
    its ``viewBox``); ``standalone``: served as its own document, with :data:`DEFAULTS` on its root.

    Raises
    ------
    ValueError
        ``text`` is not an SVG document (or, with ``labels``, one without a ``viewBox`` or text), or ``root``
        names an attribute outside :data:`ATTRIBUTES`.
    """
    named = {name.replace("_", "-"): value for name, value in root.items()}
    foreign = sorted(set(named) - ATTRIBUTES)
    if foreign:
        raise ValueError(f"root attributes {foreign}: a figure's root takes only attributes of ATTRIBUTES")
    document = ElementTree.fromstring(text)
    if _local(document.tag) != "svg":
        raise ValueError(f"not an SVG document: its root element is {_local(document.tag)!r}")
    if labels is not None:
        scale = max(1.0, labels / _smallest_text(document))
        try:
            _, _, width, height = (float(number) for number in document.attrib["viewBox"].split())
        except (KeyError, ValueError):
            raise ValueError("an SVG document without a viewBox of four numbers cannot be scaled") from None
        named = {**named, "width": f"{math.ceil(width * scale)}", "height": f"{math.ceil(height * scale)}"}
    out: list[str] = []
    scope = "f" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8] + "-"
    _write(document, out, scope, {**(DEFAULTS if standalone else {}), **named})
    return Markup("".join(out))


def _smallest_text(document: ElementTree.Element) -> float:
    """The smallest font size of the document's text elements, in its user units (``9px``, ``9``)."""
    sizes = []
    for element in document.iter():
        if _local(element.tag) in ("text", "tspan"):
            size = _attributes(element, "").get("font-size", "")
            found = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(?:px)?", size.strip())
            if found is not None:
                sizes.append(float(found.group(1)))
    if not sizes:
        raise ValueError("an SVG document without text in px has no label size to scale to")
    return min(sizes)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1] if tag.startswith("{" + _SVG + "}") or not tag.startswith("{") else ""


def _scoped(name: str, value: str, scope: str) -> str:
    """``value`` of attribute ``name`` with the figure's ids in it prefixed by ``scope``."""
    if name == "id":
        return scope + value
    if name == "href":
        return "#" + scope + value[1:]
    return re.sub(r"url\(\s*#", lambda found: found.group(0) + scope, value)


_OUTSIDE = re.compile(r"url\(\s*(?!#[A-Za-z0-9_.:-]+\s*\))", re.IGNORECASE)
"""A ``url(...)`` that is not a reference to an element of the figure (``url(#id)``): a value naming one is dropped."""


def _attributes(element: ElementTree.Element, scope: str) -> dict[str, str]:
    """The kept attributes of ``element`` (a ``style``'s properties among them), ids scoped: only links inside the
    figure (``href="#id"``, ``url(#id)``), no value naming anything outside it."""
    found: dict[str, str] = {}
    for name, value in element.attrib.items():
        if name == "style":
            for declaration in value.split(";"):
                prop, _, given = declaration.partition(":")
                if prop.strip() in PRESENTATION and given.strip() and not _OUTSIDE.search(given):
                    found.setdefault(prop.strip(), _scoped(prop.strip(), given.strip(), scope))
            continue
        local = "href" if name == "{" + _XLINK + "}href" else name
        if (local in ATTRIBUTES and (local != "href" or re.fullmatch(r"#[A-Za-z0-9_.:-]+", value))
                and not _OUTSIDE.search(value)):
            found[local] = _scoped(local, value, scope)
    return found


def _text(text: str | None) -> str:
    """Text or an attribute's value: control characters and bidirectional overrides escaped, then markup."""
    return str(escape(safe(text or "", lines=True)))


def _write(element: ElementTree.Element, out: list[str], scope: str,
           root: dict[str, str | None] | None = None) -> None:
    name = _local(element.tag)
    if name not in ELEMENTS:
        return
    attributes = _attributes(element, scope)
    if root is not None:
        attributes = {"xmlns": _SVG, **attributes}
        for key, value in root.items():
            attributes.pop(key, None)
            if value is not None:
                attributes[key] = value
    out.append(f"<{name}" + "".join(f' {key}="{_text(value)}"' for key, value in attributes.items()) + ">")
    out.append(_text(element.text))
    for child in element:
        _write(child, out, scope)
        out.append(_text(child.tail))
    out.append(f"</{name}>")
