# tablecam: a thin wrapper over CMake.  `make demo` and `make test` are the
# two set-up commands of README.md: both install what is missing first.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all build deps test test-normal test-asan test-fast demo bench models models-qwirkle models-cards models-cube2 models-cubed models-spread models-spread-cube2 clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The normal build with gcc, then an ASan+UBSan build with clang: both
# compilers stay warning-free and every test runs under the sanitizers.
# Ends with the ten slowest tests of the two runs.
test: deps
	@scripts/install-web-test-deps
	$(MAKE) test-normal
	$(MAKE) test-asan
	@echo "== the slowest tests"
	@scripts/slowest-tests -n 10 $(BUILD) $(ASAN_BUILD)

test-normal: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The normal build's tests that read no camera frames (about 20 s).
test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE frames

$(ASAN_BUILD)/CMakeCache.txt:
	CC=clang CXX=clang++ cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug \
	    -DTABLECAM_SANITIZE=ON $(CMAKE_FLAGS)

test-asan: $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

demo: deps build
	./$(BUILD)/tablecam demo

bench: build
	@for b in $(BUILD)/bench/bench_*; do [ -x "$$b" ] || continue; echo "== $$b"; "$$b" || exit 1; done

# Retrains the learned stages from the simulator (docs/models.md): needs
# Debian's python3-torch, which nothing else does.  Rendered patches are
# cached outside the repository, in MODELS_CACHE.  Two models a game: one
# trained without the designs of MODEL_HOLD (Qwirkle) or the decks of
# MODEL_CARDS_HOLD (cards), which bench_recognize and bench_recognize_cards
# measure on those designs (models/qwirkle-held.onnx, models/cards-held.onnx),
# and the shipped one, trained on every design and carrying the held-out
# figures (models/qwirkle.onnx, models/cards.onnx).
MODELS_CACHE ?= /var/tmp/tablecam-models
MODEL_HOLD   ?= 4,7
# drawn-cream, kde-jolly-royal, kde-standard, svg-liberation-serif-4c-small
MODEL_CARDS_HOLD ?= 2,6,14,28
# cube2: one design of each board kind (wood, card, cloth: design % 3)
MODEL_CUBE2_HOLD ?= 3,10,17
C2_PATCHES = ./$(BUILD)/models/cube2_patches --width 960 --height 720 --moves 40
# 5 epochs over the four parts: about as many steps as 12 over one seed
C2_EPOCHS ?= 5
C2_DATA = $(MODELS_CACHE)/c2-a,$(MODELS_CACHE)/c2-b,$(MODELS_CACHE)/c2-c,$(MODELS_CACHE)/c2-d
# cubed: one design of each of three bodies' looks left out
MODEL_CUBED_HOLD ?= 3,10,17
CB_PATCHES = ./$(BUILD)/models/cubed_patches --width 960 --height 720 --moves 40
CB_EPOCHS ?= 6
CB_DATA = $(MODELS_CACHE)/cb-a,$(MODELS_CACHE)/cb-b,$(MODELS_CACHE)/cb-c,$(MODELS_CACHE)/cb-d
QW_PATCHES = ./$(BUILD)/models/qwirkle_patches --width 1280 --height 960 --moves 8
QW_DATA = $(MODELS_CACHE)/qw-a,$(MODELS_CACHE)/qw-b,$(MODELS_CACHE)/qw-c,$(MODELS_CACHE)/qw-d
CD_PATCHES = ./$(BUILD)/models/cards_patches --width 1280 --height 960 --moves 12
CD_DATA = $(MODELS_CACHE)/cd-a,$(MODELS_CACHE)/cd-b
TORCH_CHECK = @command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null || \
	    { echo "make models needs Debian's python3-torch (apt-get install python3-torch)" >&2; exit 1; }
models: models-qwirkle models-cards models-cube2 models-cubed

models-cards: build
	$(TORCH_CHECK)
	mkdir -p $(MODELS_CACHE)
	[ -f $(MODELS_CACHE)/cd-a/patches.json ] || $(CD_PATCHES) --out $(MODELS_CACHE)/cd-a --designs 0-15 --seeds 1-10 & \
	[ -f $(MODELS_CACHE)/cd-b/patches.json ] || $(CD_PATCHES) --out $(MODELS_CACHE)/cd-b --designs 16-30 --seeds 1-10 & \
	wait
	for d in cd-a cd-b; do [ -f $(MODELS_CACHE)/$$d/patches.json ] || exit 1; done
	/usr/bin/python3 models/train_cards.py --data $(CD_DATA) --hold $(MODEL_CARDS_HOLD) --out models/cards-held.onnx
	/usr/bin/python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["figures"], open(sys.argv[2], "w"))' \
	    models/cards-held.json $(MODELS_CACHE)/cards-held-figures.json
	/usr/bin/python3 models/train_cards.py --data $(CD_DATA) --hold none \
	    --figures $(MODELS_CACHE)/cards-held-figures.json --out models/cards.onnx

models-cube2: build
	$(TORCH_CHECK)
	mkdir -p $(MODELS_CACHE)
	[ -f $(MODELS_CACHE)/c2-a/patches.json ] || $(C2_PATCHES) --out $(MODELS_CACHE)/c2-a --designs 0-11 --seeds 1-1 & \
	[ -f $(MODELS_CACHE)/c2-b/patches.json ] || $(C2_PATCHES) --out $(MODELS_CACHE)/c2-b --designs 12-23 --seeds 1-1 & \
	wait
	[ -f $(MODELS_CACHE)/c2-c/patches.json ] || $(C2_PATCHES) --out $(MODELS_CACHE)/c2-c --designs 0-11 --seeds 2-3 & \
	[ -f $(MODELS_CACHE)/c2-d/patches.json ] || $(C2_PATCHES) --out $(MODELS_CACHE)/c2-d --designs 12-23 --seeds 2-3 & \
	wait
	for d in c2-a c2-b c2-c c2-d; do [ -f $(MODELS_CACHE)/$$d/patches.json ] || exit 1; done
	/usr/bin/python3 models/train_cube2.py --data $(C2_DATA) --epochs $(C2_EPOCHS) --hold $(MODEL_CUBE2_HOLD) \
	    --out models/cube2-held.onnx
	/usr/bin/python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["figures"], open(sys.argv[2], "w"))' \
	    models/cube2-held.json $(MODELS_CACHE)/cube2-held-figures.json
	/usr/bin/python3 models/train_cube2.py --data $(C2_DATA) --epochs $(C2_EPOCHS) --hold none \
	    --figures $(MODELS_CACHE)/cube2-held-figures.json --out models/cube2.onnx
	$(MAKE) models-spread-cube2

models-cubed: build
	$(TORCH_CHECK)
	mkdir -p $(MODELS_CACHE)
	[ -f $(MODELS_CACHE)/cb-a/patches.json ] || $(CB_PATCHES) --out $(MODELS_CACHE)/cb-a --designs 0-11 --seeds 1-1 & \
	[ -f $(MODELS_CACHE)/cb-b/patches.json ] || $(CB_PATCHES) --out $(MODELS_CACHE)/cb-b --designs 12-23 --seeds 1-1 & \
	wait
	[ -f $(MODELS_CACHE)/cb-c/patches.json ] || $(CB_PATCHES) --out $(MODELS_CACHE)/cb-c --designs 0-11 --seeds 2-2 & \
	[ -f $(MODELS_CACHE)/cb-d/patches.json ] || $(CB_PATCHES) --out $(MODELS_CACHE)/cb-d --designs 12-23 --seeds 2-2 & \
	wait
	for d in cb-a cb-b cb-c cb-d; do [ -f $(MODELS_CACHE)/$$d/patches.json ] || exit 1; done
	/usr/bin/python3 models/train_cubed.py --data $(CB_DATA) --epochs $(CB_EPOCHS) --hold $(MODEL_CUBED_HOLD) \
	    --out models/cubed-held.onnx
	/usr/bin/python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["figures"], open(sys.argv[2], "w"))' \
	    models/cubed-held.json $(MODELS_CACHE)/cubed-held-figures.json
	/usr/bin/python3 models/train_cubed.py --data $(CB_DATA) --epochs $(CB_EPOCHS) --hold none \
	    --figures $(MODELS_CACHE)/cubed-held-figures.json --out models/cubed.onnx

models-qwirkle: build
	$(TORCH_CHECK)
	mkdir -p $(MODELS_CACHE)
	[ -f $(MODELS_CACHE)/qw-a/patches.json ] || $(QW_PATCHES) --out $(MODELS_CACHE)/qw-a --designs 0-4 --seeds 1-16 & \
	[ -f $(MODELS_CACHE)/qw-b/patches.json ] || $(QW_PATCHES) --out $(MODELS_CACHE)/qw-b --designs 5-9 --seeds 1-16 & \
	wait
	[ -f $(MODELS_CACHE)/qw-c/patches.json ] || $(QW_PATCHES) --out $(MODELS_CACHE)/qw-c --designs 10-24 --seeds 1-6 & \
	[ -f $(MODELS_CACHE)/qw-d/patches.json ] || $(QW_PATCHES) --out $(MODELS_CACHE)/qw-d --designs 25-39 --seeds 1-6 & \
	wait
	for d in qw-a qw-b qw-c qw-d; do [ -f $(MODELS_CACHE)/$$d/patches.json ] || exit 1; done
	/usr/bin/python3 models/train_qwirkle.py --data $(QW_DATA) --hold $(MODEL_HOLD) --out models/qwirkle-held.onnx
	/usr/bin/python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["figures"], open(sys.argv[2], "w"))' \
	    models/qwirkle-held.json $(MODELS_CACHE)/qwirkle-held-figures.json
	/usr/bin/python3 models/train_qwirkle.py --data $(QW_DATA) --hold none \
	    --figures $(MODELS_CACHE)/qwirkle-held-figures.json --out models/qwirkle.onnx
	$(MAKE) models-spread

# How far a value's features spread across cameras and lights (for
# enrolled sets, docs/models.md), on sim seeds no model was trained on,
# written into each manifest's "features" (the .onnx files stay as they
# are).
QW_SPREAD = $(MODELS_CACHE)/sp-a,$(MODELS_CACHE)/sp-b
models-spread: build
	mkdir -p $(MODELS_CACHE)
	[ -f $(MODELS_CACHE)/sp-a/patches.json ] || $(QW_PATCHES) --out $(MODELS_CACHE)/sp-a --designs 0-9 --seeds 101-104 & \
	[ -f $(MODELS_CACHE)/sp-b/patches.json ] || $(QW_PATCHES) --out $(MODELS_CACHE)/sp-b --designs 10-39 --seeds 101-101 & \
	wait
	for m in qwirkle-held qwirkle; do \
	    ./$(BUILD)/models/feature_spread --model models/$$m.onnx $(QW_SPREAD) > $(MODELS_CACHE)/$$m-spread.json || exit 1; \
	    /usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["features"]["spread"]=json.load(open(sys.argv[2]))["spread"]; f=open(sys.argv[1],"w"); json.dump(m,f,indent=1); f.write("\n")' \
	        models/$$m.json $(MODELS_CACHE)/$$m-spread.json || exit 1; \
	done

C2_SPREAD = $(MODELS_CACHE)/c2sp-a,$(MODELS_CACHE)/c2sp-b
models-spread-cube2: build
	mkdir -p $(MODELS_CACHE)
	[ -f $(MODELS_CACHE)/c2sp-a/patches.json ] || $(C2_PATCHES) --out $(MODELS_CACHE)/c2sp-a --designs 0-11 --seeds 101-101 & \
	[ -f $(MODELS_CACHE)/c2sp-b/patches.json ] || $(C2_PATCHES) --out $(MODELS_CACHE)/c2sp-b --designs 12-23 --seeds 101-101 & \
	wait
	for d in c2sp-a c2sp-b; do [ -f $(MODELS_CACHE)/$$d/patches.json ] || exit 1; done
	for m in cube2-held cube2; do \
	    ./$(BUILD)/models/feature_spread --model models/$$m.onnx $(C2_SPREAD) > $(MODELS_CACHE)/$$m-spread.json || exit 1; \
	    /usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["features"]["spread"]=json.load(open(sys.argv[2]))["spread"]; f=open(sys.argv[1],"w"); json.dump(m,f,indent=1); f.write("\n")' \
	        models/$$m.json $(MODELS_CACHE)/$$m-spread.json || exit 1; \
	done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
