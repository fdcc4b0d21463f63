#!/usr/bin/python3
"""models/train_cube2.py: trains the cube2 square classifier (what stands
on a square of the board: nothing, a cube or a cylinder of one of six
colours, or something that covers it) on patches from
models/cube2_patches, and exports it for vision/classify.h.

  models/train_cube2.py --data DIR[,DIR...] --out models/cube2.onnx
      [--hold 3,10,17] [--epochs N] [--seed S]

With --hold, the designs named are left out of training and the figures
written into the manifest are measured on them alone (designs the network
never saw); the shipped model is then trained again on every design
(--hold none) and carries the held-out figures of the run before it
(--figures FILE).  Deterministic for one torch build.

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

# vision/cube2Int.h: the colour head's values; then rules' enum rules_c2shape
COLORS = ["empty", "red", "orange", "yellow", "green", "blue", "purple", "covered"]
SHAPES = ["cube", "cylinder"]
NONE = 255  # shape label of a square without a piece


def losses(out, y):
    lc = F.cross_entropy(out[:, :8], y[:, 0])
    piece = y[:, 1] != NONE
    ls = F.cross_entropy(out[piece, 8:], y[piece, 1]) if piece.any() else out.sum() * 0
    return lc + ls


def evaluate(net, x, y, mean, std):
    net.eval()
    with torch.no_grad():
        out = []
        for i in range(0, len(x), 2048):
            out.append(net((x[i:i + 2048] - mean) / std))
        out = torch.cat(out)
    pc = F.softmax(out[:, :8], 1)
    ps = F.softmax(out[:, 8:], 1)
    cc, c = pc.max(1)
    cs, sh = ps.max(1)
    yc, ys = torch.from_numpy(y[:, 0]), torch.from_numpy(y[:, 1])
    piece = (yc >= 1) & (yc <= 6)
    right = (c == yc) & (~piece | (sh == ys))
    conf = torch.where(c >= 1, cc * cs, cc)
    conf = torch.where(c == 7, torch.zeros_like(conf), conf)
    seen = yc != 7
    fig = {
        "squares": int(seen.sum()),
        "square_error": float(1 - right[seen].float().mean()),
        "pieces": int(piece.sum()),
        "piece_error": float(1 - right[piece].float().mean()) if piece.any() else None,
        "empty_error": float(1 - right[yc == 0].float().mean()) if (yc == 0).any() else None,
        "shape_error": float((sh[piece] != ys[piece]).float().mean()) if piece.any() else None,
        "color_confusion": [[int(((yc == a) & (c == b)).sum()) for b in range(8)] for a in range(8)],
        "covered": int((yc == 7).sum()),
        "covered_found": float((c[yc == 7] == 7).float().mean()) if (yc == 7).any() else None,
        "seen_called_covered": float((c[seen] == 7).float().mean()),
    }
    sure = seen & (conf >= 0.9)
    fig["read_at_0.9"] = int(sure.sum())
    fig["right_at_0.9"] = float(right[sure].float().mean()) if sure.any() else None
    yy = torch.from_numpy(y)

    def part(mask):
        m = int((mask & seen).sum())
        return {"squares": m,
                "square_error": float(1 - right[mask & seen].float().mean()) if m else None}
    fig["by_design"] = {str(d): part(yy[:, 2] == d) for d in sorted(set(y[:, 2].tolist()))}
    fig["by_px_per_mm"] = {"%.1f-%.1f" % (lo, hi): part((yy[:, 3] >= lo * 40) & (yy[:, 3] < hi * 40))
                           for lo, hi in ((0.0, 0.6), (0.6, 1.0), (1.0, 1.3), (1.3, 9.9))}
    fig["by_setup"] = {"good": part(yy[:, 5] == 1), "any": part(yy[:, 5] == 0)}
    fig["stable"] = part(yy[:, 6] == 1)
    fig["reliability"] = [dict(conf=[lo, hi], **part((conf >= lo) & (conf < hi)))
                          for lo, hi in ((0, 0.5), (0.5, 0.9), (0.9, 0.99), (0.99, 1.01))]
    return fig


def main():
    ap = arguments(12)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(2)
    g = torch.Generator().manual_seed(a.seed)

    px, y, meta, hold, test, x, xtr, ytr, mean, std = prepare(a.data, a.hold, 2)
    net = Net(len(COLORS) + len(SHAPES), a.width)

    def report(ep):
        f = evaluate(net, x[test], y[test], mean, std)
        return "; held-out designs %s: square error %.4f (pieces %.4f, empty %.4f)" % (
            hold, f["square_error"], f["piece_error"], f["empty_error"])

    fit(net, xtr, ytr, mean, std, a.epochs, g, losses, report if hold else None)

    figures = {}
    if hold:
        figures = {"held_out_designs": hold, **evaluate(net, x[test], y[test], mean, std)}
    elif a.figures:
        figures = json.load(open(a.figures))
    trained_on = {"designs": sorted(set(int(v) for v in y[~test, 2])),
                  "patches": int(len(xtr)), "data": [m for m in meta],
                  "epochs": a.epochs, "seed": a.seed, "width": a.width,
                  "torch": torch.__version__}
    export(net, px.shape[1], a.out, mean, std, [("color", COLORS), ("shape", SHAPES)], trained_on,
           figures, "train_cube2")
    if hold:
        print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
