#!/usr/bin/python3
"""models/make_test_model.py: the tiny random classifier that the tests of
vision/classify.h load (tests/data/classify-test.onnx and its manifest
classify-test.json).

It is not trained: its weights are torch's default initialisation under a
fixed seed, with the last layer scaled up so that the probabilities are far
from uniform and a wrong normalisation or channel order shows.  Its only job
is to pin the C shim against torch: the manifest's "check" field holds one
input patch and the probabilities torch computes for it.

Needs Debian's python3-torch (1.13); running and testing tablecam never do.
Usage: models/make_test_model.py [OUT_DIR]   (default the repository's
tests/data).  The same torch gives the same bytes (sha256 in the manifest).
"""
import hashlib
import json
import os
import re
import sys

import torch
import torch.nn as nn

SIZE = 24
# BGR order, as the patches are: channel 0 is blue.  Distinct per channel so
# that a shim mixing up the channels or ignoring std fails the check.
MEAN = [0.40, 0.45, 0.50]
STD = [0.22, 0.24, 0.26]
# The order of rules/rules.h (enum rules_shape, enum rules_color).
HEADS = [
    ("shape", ["circle", "square", "diamond", "clover", "star4", "star8"]),
    ("color", ["red", "orange", "yellow", "green", "blue", "purple"]),
]
SEED = 1
OPSET = 11


class Net(nn.Module):
    def __init__(self, nout):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Linear(16 * (SIZE // 4) * (SIZE // 4), nout)

    def forward(self, x):
        # flatten(x, 1) exports as ONNX Flatten, which keeps the batch
        # dimension free (a view(-1, n) would export a Reshape).
        return self.fc(torch.flatten(self.features(x), 1))


def check_pixels():
    """The check patch, row by row, then column, then channel (B, G, R)."""
    return [(x * 7 + y * 13 + c * 29) % 256
            for y in range(SIZE) for x in range(SIZE) for c in range(3)]


def to_tensor(pixels):
    t = torch.tensor(pixels, dtype=torch.float32).reshape(SIZE, SIZE, 3)
    t = t.permute(2, 0, 1) / 255.0  # HWC -> CHW
    m = torch.tensor(MEAN).reshape(3, 1, 1)
    s = torch.tensor(STD).reshape(3, 1, 1)
    return ((t - m) / s).unsqueeze(0)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
    onnx_path = os.path.join(out_dir, "classify-test.onnx")
    json_path = os.path.join(out_dir, "classify-test.json")

    torch.manual_seed(SEED)
    nout = sum(len(v) for _, v in HEADS)
    net = Net(nout).eval()
    with torch.no_grad():
        net.fc.weight.mul_(8.0)
        net.fc.bias.mul_(8.0)

    dummy = torch.zeros(1, 3, SIZE, SIZE)
    torch.onnx.export(net, dummy, onnx_path, opset_version=OPSET,
                      input_names=["patch"], output_names=["logits"],
                      dynamic_axes={"patch": {0: "batch"},
                                    "logits": {0: "batch"}},
                      do_constant_folding=True)

    pixels = check_pixels()
    with torch.no_grad():
        logits = net(to_tensor(pixels))[0]
    probs = []
    at = 0
    for _, values in HEADS:
        p = torch.softmax(logits[at:at + len(values)].double(), 0)
        probs += [round(float(v), 8) for v in p]
        at += len(values)

    with open(onnx_path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()

    manifest = {
        "name": "classify-test",
        "about": "tiny untrained CNN for tests/test_vision_classify.c; "
                 "made by models/make_test_model.py",
        "input": {"size": SIZE, "channels": 3, "mean": MEAN, "std": STD},
        "heads": [{"name": n, "values": v} for n, v in HEADS],
        "seed": SEED,
        "opset": OPSET,
        "torch": torch.__version__,
        "sha256": digest,
        "check": {
            "pixel": "(x*7 + y*13 + c*29) % 256 at row y, column x, "
                     "channel c (0 = blue)",
            "pixels": pixels,
            "probs": probs,
        },
    }
    text = json.dumps(manifest, indent=1)
    # Flat arrays on one line each: the check patch is 1728 values.
    text = re.sub(r"\[[^\[\]{}]*\]",
                  lambda m: json.dumps(json.loads(m.group(0))), text)
    with open(json_path, "w") as f:
        f.write(text + "\n")
    print("%s: %d bytes, sha256 %s" % (onnx_path, os.path.getsize(onnx_path),
                                      digest))
    print("check probs:", probs)


if __name__ == "__main__":
    main()
