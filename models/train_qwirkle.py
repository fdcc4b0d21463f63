#!/usr/bin/python3
"""models/train_qwirkle.py: trains the Qwirkle cube classifier (shape and
colour of a cube's top face) on patches from models/qwirkle_patches, and
exports it for vision/classify.h.

  models/train_qwirkle.py --data DIR[,DIR...] --out models/qwirkle.onnx
      [--hold 3,8] [--epochs N] [--seed S]

With --hold, the designs named are left out of training and the figures
written into the manifest are measured on them alone (designs the network
never saw); the shipped model is then trained again on every design
(--hold none) and carries the held-out figures of the run before it
(--figures FILE).  Deterministic for one torch build: fixed seeds, one
thread order.

Needs Debian's python3-torch (1.13) and python3-numpy; running and
testing tablecam never do.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchnet import Net, arguments, export, fit, prepare  # noqa: E402

# rules/rules.h order (enum rules_shape, enum rules_color)
SHAPES = ["circle", "square", "diamond", "clover", "star4", "star8"]
COLORS = ["red", "orange", "yellow", "green", "blue", "purple"]


def losses(out, y):
    return F.cross_entropy(out[:, :6], y[:, 0]) + F.cross_entropy(out[:, 6:], y[:, 1])


def evaluate(net, x, y, mean, std):
    net.eval()
    with torch.no_grad():
        out = []
        for i in range(0, len(x), 2048):
            out.append(net((x[i:i + 2048] - mean) / std))
        out = torch.cat(out)
    ps = F.softmax(out[:, :6], 1)
    pc = F.softmax(out[:, 6:], 1)
    cs, ss = ps.max(1)
    cc, sc = pc.max(1)
    ys, yc = torch.from_numpy(y[:, 0]), torch.from_numpy(y[:, 1])
    right = (ss == ys) & (sc == yc)
    conf = cs * cc
    fig = {
        "pieces": int(len(y)),
        "piece_error": float(1 - right.float().mean()),
        "shape_error": float((ss != ys).float().mean()),
        "color_error": float((sc != yc).float().mean()),
        "shape_confusion": [[int(((ys == a) & (ss == b)).sum()) for b in range(6)] for a in range(6)],
        "color_confusion": [[int(((yc == a) & (sc == b)).sum()) for b in range(6)] for a in range(6)],
    }
    sure = conf >= 0.9
    fig["read_at_0.9"] = int(sure.sum())
    fig["right_at_0.9"] = float(right[sure].float().mean()) if sure.any() else None
    # where the errors are: by design, by how finely the camera sees the
    # cube, by the camera's set-up
    yy = torch.from_numpy(y)

    def part(mask):
        m = int(mask.sum())
        return {"pieces": m, "piece_error": float(1 - right[mask].float().mean()) if m else None}
    fig["by_design"] = {str(d): part(yy[:, 2] == d) for d in sorted(set(y[:, 2].tolist()))}
    fig["by_px_per_mm"] = {"%.1f-%.1f" % (lo, hi): part((yy[:, 3] >= lo * 40) & (yy[:, 3] < hi * 40))
                           for lo, hi in ((0.6, 1.0), (1.0, 1.3), (1.3, 1.6), (1.6, 9.9))}
    fig["by_setup"] = {"good": part(yy[:, 6] == 1), "any": part(yy[:, 6] == 0)}
    # reliability: of the pieces read at conf in [lo, hi), how many right
    fig["reliability"] = [dict(conf=[lo, hi], **part((conf >= lo) & (conf < hi)))
                          for lo, hi in ((0, 0.5), (0.5, 0.9), (0.9, 0.99), (0.99, 1.01))]
    return fig


def main():
    ap = arguments(24)
    ap.add_argument("--min-ppm", type=float, default=0.6,
                    help="figures count cubes seen at this many px/mm or more (the referee "
                         "asks for a better camera below 0.6)")
    ap.add_argument("--max-blur", type=float, default=1.55,
                    help="and with less focus blur than this, mm (the referee's limit)")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(2)
    g = torch.Generator().manual_seed(a.seed)

    px, y, meta, hold, test, x, xtr, ytr, mean, std = prepare(a.data, a.hold, 2)
    # held-out figures: the cubes a camera the referee accepts sees
    seen = (y[:, 3] >= a.min_ppm * 40) & (y[:, 4] < a.max_blur * 40)
    test_ok = test & seen
    net = Net(len(SHAPES) + len(COLORS), a.width)

    def report(ep):
        f = evaluate(net, x[test_ok], y[test_ok], mean, std)
        return "; held-out designs %s: piece error %.4f (shape %.4f, colour %.4f)" % (
            hold, f["piece_error"], f["shape_error"], f["color_error"])

    fit(net, xtr, ytr, mean, std, a.epochs, g, losses, report if hold else None)

    figures = {}
    if hold:
        figures = {"held_out_designs": hold, "min_px_per_mm": a.min_ppm,
                   "max_blur_mm": a.max_blur,
                   **evaluate(net, x[test_ok], y[test_ok], mean, std)}
    elif a.figures:
        figures = json.load(open(a.figures))
    trained_on = {"designs": sorted(set(int(v) for v in y[~test, 2])),
                  "patches": int(len(xtr)), "data": [m for m in meta],
                  "epochs": a.epochs, "seed": a.seed, "width": a.width,
                  "torch": torch.__version__}
    export(net, px.shape[1], a.out, mean, std, [("shape", SHAPES), ("color", COLORS)], trained_on,
           figures, "train_qwirkle")
    if hold:
        print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
