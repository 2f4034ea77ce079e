"""Reading lineage pages the way a person sees them: the SVG's boxes and lines."""

import re
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
KIND_COLORS = {
    "#0b5cad": "continuation",
    "#c77700": "branch",
    "#7a3db8": "delegate",
    "#a4161a": "orphan",
}


def svg_in(html: str) -> ET.Element:
    match = re.search(r'class="svg-wrap".*?(<svg\b.*?</svg>)', html, re.S)
    assert match, "no SVG on the page"
    return ET.fromstring(match.group(1))  # noqa: S314 - the page under test


def node_texts(svg: ET.Element) -> list[str]:
    """Each drawn box's lines of text, joined by " | "."""
    boxes = []
    for group in svg.iter(f"{SVG}g"):
        if "node" in (group.get("class") or "").split():
            lines = ["".join(t.itertext()) for t in group.iter(f"{SVG}text")]
            boxes.append(" | ".join(lines))
    return boxes


def edge_kinds(svg: ET.Element) -> list[str]:
    kinds = []
    for group in svg.iter(f"{SVG}g"):
        if "edge" in (group.get("class") or "").split():
            path = group.find(f"{SVG}path")
            kinds.append(KIND_COLORS.get(path.get("stroke"), path.get("stroke")))
    return sorted(kinds)


def links(svg: ET.Element) -> set[str]:
    return {a.get(f"{XLINK}href") for a in svg.iter(f"{SVG}a")} - {None}


def box_with(svg: ET.Element, text: str) -> str:
    found = [box for box in node_texts(svg) if text in box]
    assert len(found) == 1, (text, node_texts(svg))
    return found[0]
