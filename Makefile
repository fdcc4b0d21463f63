# tablecam: a thin wrapper over CMake.  `make demo` and `make test` are the
# two set-up commands of README.md: both install what is missing first.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all build deps test test-normal test-asan test-fast demo bench models clean

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
# cached outside the repository, in MODELS_CACHE.
MODELS_CACHE ?= /var/tmp/tablecam-models
MODEL_HOLD   ?= 4,7
models: build
	@command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null || \
	    { echo "make models needs Debian's python3-torch (apt-get install python3-torch)" >&2; exit 1; }
	mkdir -p $(MODELS_CACHE)
	[ -f $(MODELS_CACHE)/qw-a/patches.json ] || ./$(BUILD)/models/qwirkle_patches --out $(MODELS_CACHE)/qw-a \
	    --designs 0-4 --seeds 1-8 --width 1280 --height 960 --moves 10
	[ -f $(MODELS_CACHE)/qw-b/patches.json ] || ./$(BUILD)/models/qwirkle_patches --out $(MODELS_CACHE)/qw-b \
	    --designs 5-9 --seeds 1-8 --width 1280 --height 960 --moves 10
	/usr/bin/python3 models/train_qwirkle.py --data $(MODELS_CACHE)/qw-a,$(MODELS_CACHE)/qw-b \
	    --hold $(MODEL_HOLD) --out $(MODELS_CACHE)/qwirkle-held.onnx
	/usr/bin/python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["figures"], open(sys.argv[2], "w"))' \
	    $(MODELS_CACHE)/qwirkle-held.json $(MODELS_CACHE)/qwirkle-held-figures.json
	/usr/bin/python3 models/train_qwirkle.py --data $(MODELS_CACHE)/qw-a,$(MODELS_CACHE)/qw-b \
	    --hold none --figures $(MODELS_CACHE)/qwirkle-held-figures.json --out models/qwirkle.onnx

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
