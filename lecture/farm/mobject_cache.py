"""Parsed SVG mobjects kept on disk across manim processes, and SVG paths shared by copies.

A chunk's manim process runs the scene's whole `construct()`, so it builds again every
`Text` and `MathTex` the scene showed before the chunk. Most of that cost is svgelements
parsing the SVG that Pango or LaTeX made; manim keeps what it parsed only inside one
process (`SVG_HASH_TO_MOB_MAP`, keyed by Python's per-process `hash()`), and a `Text`
does not use even that. `install(folder)` makes `SVGMobject.generate_mobject` look the
parse up on disk first: an entry is keyed by a SHA-256 digest of the SVG file's bytes and of
everything else the parse reads (the mobject's SVG style defaults and path settings, the
renderer, the versions of manim, svgelements and this format), holds the submobjects and
groups exactly as manim's parse left them before it flips them upright, and is written
whole or not at all (temp file, then `os.replace`). An entry is a pickle, so it is signed
with this user's key like the numbers' cache (`ffn_core.cache.signed`) and its signature is
checked before anything is unpickled; an entry that is not signed by it, or cannot be read,
is parsed again and written anew. The build keeps the folder under `MAX_BYTES`, deleting
the entries used longest ago. The mobject then goes on exactly as manim's own `__init__` goes on
(the flip, its style, its size), so its points are the same floats either way.

Every glyph also keeps its parsed svgelements path (`path_obj`), which manim reads only while
it builds the glyph's points, in the glyph's `__init__`. Every `copy()` of a text deep-copied
those paths again (thousands of objects per text: most of what a skipped `Transform` or
`FadeIn` cost). `SharedPath` makes copies share the one path instead; nothing in manim or in
the scenes changes a path after the glyph is built, and nothing drawn is read from it.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import re
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from functools import partialmethod
from pathlib import Path
from typing import Any

import svgelements as se  # type: ignore[import-untyped]

FORMAT = 2  # bump when an entry's layout or what it holds changes (2: keyed without cairo's surface name)
# cairo names the SVG a text is drawn into after a count of the surfaces this process made
# before it (`<g id="surface21">`), and drawing a frame makes surfaces too: a text made after
# the frames a render drew has other bytes than in a chunk that skipped them, so every tail
# chunk missed the parses the scene's full render made. The name reaches the parse only as
# the key of its group: an entry is keyed and kept under `SURFACE_NAME`, and the group is
# given back the SVG's own name.
_SURFACE_ID = re.compile(rb'id="(surface\d+)"')
SURFACE_NAME = "surface"
FOLDER = "mobjects"  # under the build's SVG cache (`lecture.layout.svg_cache_dir()`)
# The folder's bound: about 100 kB per text, the whole lecture's texts in about 150 MB.
MAX_BYTES = 400 * 1024 * 1024
# The manim versions whose `SVGMobject.generate_mobject` `_parse` below mirrors step for step;
# under any other the cache stays off (paths are still shared: that holds for any version).
MIRRORED_MANIM = frozenset({"0.22.0"})

# What `generate_mobject` calls on the mobject: a class overriding any of them parses its own
# way, and is left to manim.
PARSE_METHODS = (
    "generate_mobject",
    "get_file_path",
    "modify_xml_tree",
    "generate_config_style_dict",
    "get_mobjects_from",
    "get_mob_from_shape_element",
    "handle_transform",
    "apply_style_to_mobject",
    "path_to_mobject",
    "line_to_mobject",
    "rect_to_mobject",
    "ellipse_to_mobject",
    "polygon_to_mobject",
    "polyline_to_mobject",
    "text_to_mobject",
    "get_mobject_type_class",
)


class SharedPath(se.Path):
    """A glyph's parsed SVG path that every copy of the glyph shares (see the module's doc)."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedPath:
        return self


class PathOnDemand:
    """A glyph's path as a cache entry holds it: unpickled the first time something reads it
    (nothing does once the glyph is built; unpickling every path of a text cost more than all
    the rest of its entry). Shared by copies, like `SharedPath`."""

    __slots__ = ("_blob", "_path")

    def __init__(self, blob: bytes):
        self._blob = blob
        self._path: se.Path | None = None

    def resolve(self) -> se.Path:
        if self._path is None:
            self._path = pickle.loads(self._blob)
        return self._path

    def __deepcopy__(self, memo: dict[int, Any]) -> PathOnDemand:
        return self

    def __getattr__(self, name: str) -> Any:
        return getattr(self.resolve(), name)

    def __iter__(self):
        return iter(self.resolve())

    def __len__(self) -> int:
        return len(self.resolve())

    def __getitem__(self, index):
        return self.resolve()[index]

    def __repr__(self) -> str:
        return repr(self.resolve())


class _EntryPickler(pickle.Pickler):
    """Pickles each glyph path on its own, so that loading the entry leaves it unread."""

    def persistent_id(self, obj: Any) -> bytes | None:
        if isinstance(obj, PathOnDemand):
            return obj._blob
        if isinstance(obj, SharedPath):
            return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        return None


class _EntryUnpickler(pickle.Unpickler):
    def persistent_load(self, pid: Any) -> PathOnDemand:
        if not isinstance(pid, bytes):
            raise pickle.UnpicklingError("not a path")
        return PathOnDemand(pid)


@dataclass(frozen=True)
class MobjectStore:
    """Entries on disk, one file per key; every failure to read one reads as a miss."""

    folder: Path

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.pickle"

    def load(self, key: str) -> tuple[list, dict] | None:
        from ffn_core.cache import verified

        try:
            payload = verified(key, self.path(key).read_bytes())
        except OSError:
            return None
        if payload is None:  # not signed by this user's key: never unpickled (`ffn_core.cache`)
            return None
        try:
            entry = _EntryUnpickler(io.BytesIO(payload)).load()
            os.utime(self.path(key))  # used: kept by `prune`
        except Exception:  # signed but from a build that no longer unpickles it: parse again
            return None
        if not (isinstance(entry, tuple) and len(entry) == 3 and entry[0] == FORMAT and entry[1] == key):
            return None
        mobjects, groups = entry[2]
        if not (isinstance(mobjects, list) and isinstance(groups, dict)):
            return None
        return mobjects, groups

    def save(self, key: str, mobjects: list, groups: dict) -> None:
        """Write the entry whole or not at all; a cache that cannot be written only costs time."""
        from ffn_core.cache import signed

        target = self.path(key)
        tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.part")
        try:
            buffer = io.BytesIO()
            _EntryPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump((FORMAT, key, (mobjects, groups)))
            entry = signed(key, buffer.getvalue())
            if entry is None:  # no key to sign with: nothing is kept
                return
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(entry)
            os.replace(tmp, target)
        except Exception:
            tmp.unlink(missing_ok=True)

    def prune(self, max_bytes: int) -> None:
        """Delete the entries used longest ago until the folder holds at most `max_bytes`."""
        try:
            entries = [(p.stat().st_mtime_ns, p.stat().st_size, p) for p in self.folder.glob("*.pickle")]
        except OSError:
            return
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= max_bytes:
                break
            path.unlink(missing_ok=True)
            total -= size


def default_folder() -> Path:
    """Where the build keeps the entries: beside the formulas' SVGs it shares."""
    from lecture.layout import svg_cache_dir

    return svg_cache_dir() / FOLDER


def install(folder: Path | None) -> None:
    """Share glyphs' paths between copies and, with a folder, cache SVG parses in it.

    Patches manim's classes in this process only (a render process, which renders one scene
    and exits)."""
    import manim
    from manim.mobject.svg.svg_mobject import SVGMobject, VMobjectFromSVGPath

    if not getattr(VMobjectFromSVGPath.__init__, "_ffn_shares_path", False):
        VMobjectFromSVGPath.__init__ = _sharing_path(VMobjectFromSVGPath.__init__)  # type: ignore[method-assign]
    if folder is None or manim.__version__ not in MIRRORED_MANIM:
        return
    original = getattr(SVGMobject.generate_mobject, "_ffn_original", SVGMobject.generate_mobject)
    store = MobjectStore(folder)

    def generate_mobject(self):
        if not _cacheable(self, generate_mobject):
            return original(self)
        file_path = self.get_file_path()
        data = file_path.read_bytes()
        named, surface = without_surface_name(data)
        key = entry_key(self, named)
        entry = store.load(key)
        if entry is None:
            mobjects, groups = _parse(self, file_path, data)
            store.save(key, mobjects, _renamed(groups, surface, SURFACE_NAME))
        else:
            mobjects, groups = entry
            groups = _renamed(groups, SURFACE_NAME, surface)
        # What manim's own generate_mobject does with its parse.
        from manim import RIGHT

        self.add(*mobjects)
        self.id_to_vgroup_dict = groups
        self.flip(RIGHT)
        return self

    generate_mobject._ffn_original = original  # type: ignore[attr-defined]
    SVGMobject.generate_mobject = generate_mobject  # type: ignore[method-assign]


def _sharing_path(init: Callable[..., None]) -> Callable[..., None]:
    def __init__(self, path_obj, *args, **kwargs):
        init(self, path_obj, *args, **kwargs)
        if type(self.path_obj) is se.Path:
            self.path_obj.__class__ = SharedPath

    __init__._ffn_shares_path = True  # type: ignore[attr-defined]
    return __init__


def without_surface_name(data: bytes) -> tuple[bytes, str | None]:
    """The SVG's bytes with cairo's surface name made `SURFACE_NAME`, and the name it had
    (None, and the bytes as they are, unless it has exactly one, named nowhere else)."""
    names = _SURFACE_ID.findall(data)
    if len(names) != 1 or data.count(names[0]) != 1:
        return data, None
    return _SURFACE_ID.sub(f'id="{SURFACE_NAME}"'.encode(), data), names[0].decode()


def _renamed(groups: dict, old: str | None, new: str | None) -> dict:
    """`groups` with the group `old` under the name `new`, in the same place."""
    if old is None or new is None or old == new or old not in groups:
        return groups
    return {new if name == old else name: group for name, group in groups.items()}


def entry_key(mob, data: bytes) -> str:
    """The digest of what an SVG parse reads: the file's bytes and the mobject's settings."""
    import manim
    from manim import config

    settings = (
        FORMAT,
        manim.__version__,
        getattr(se, "SVGELEMENTS_VERSION", ""),
        f"{type(mob).__module__}.{type(mob).__qualname__}",
        repr(sorted(mob.svg_default.items())),
        repr(sorted(mob.path_string_config.items())),
        str(config.renderer),
    )
    h = hashlib.sha256(repr(settings).encode())
    h.update(b"\0")
    h.update(data)
    return h.hexdigest()[:32]


def _parse(mob, file_path: Path, data: bytes) -> tuple[list, dict]:
    """manim 0.22's `SVGMobject.generate_mobject` up to its flip, on the bytes that were hashed."""
    element_tree = ET.parse(io.BytesIO(data))
    new_tree = mob.modify_xml_tree(element_tree)
    # Written beside the source and parsed from there, as manim does (for relative references).
    modified_file_path = file_path.with_name(f"{file_path.stem}_{file_path.suffix}")
    new_tree.write(modified_file_path)
    svg = se.SVG.parse(modified_file_path)
    modified_file_path.unlink()
    mobjects, groups = mob.get_mobjects_from(svg)
    return mobjects, groups


def _cacheable(mob, patched: Callable) -> bool:
    """Only a parse that runs manim's own steps with manim's own defaults is cached."""
    from manim.mobject.svg.svg_mobject import SVGMobject

    cls = type(mob)
    for name in PARSE_METHODS:
        mine = getattr(cls, name, None)
        base = patched if name == "generate_mobject" else getattr(SVGMobject, name, None)
        if _function(mine) is not _function(base):
            return False
    return not any(_defaults_changed(c) for c in _built_classes())


def _function(attr: Any) -> Any:
    return getattr(attr, "__func__", attr)


def _built_classes() -> tuple[type, ...]:
    """The classes a parse instantiates (whose `set_default` would change what it builds)."""
    from manim import Circle, Line, Polygon, Rectangle, RoundedRectangle, VGroup, VMobject
    from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath

    return (VMobjectFromSVGPath, VGroup, Line, Rectangle, RoundedRectangle, Circle, Polygon, VMobject)


def _defaults_changed(cls: type) -> bool:
    return any(isinstance(c.__dict__.get("__init__"), partialmethod) for c in cls.__mro__)
