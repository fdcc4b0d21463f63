# tablecam: a thin wrapper over CMake.  `make demo` and `make test` are the
# two set-up commands of README.md: both install what is missing first.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all build deps test test-normal test-asan test-fast demo bench clean

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

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
