# gallop: the two set-up commands of the README, plus their parts.
#   make demo   install what is missing, build, run the main job on fixtures/
#   make test   install what is missing, build, run every test
#               (with CI set, also the whole suite under ASan + UBSan)
#   make stress hundreds of small runs at -j 4 that must not crash (issue 12)

BUILD       ?= build
BUILD_ASAN  ?= build-asan
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
GALLOP      := $(BUILD)/cmd/gallop

# Everything gallop needs from Debian, to build, test and demo.
DEBIAN_PACKAGES := cmake make gcc pkg-config \
	libvips-dev libvips-tools libexif-dev libyaml-dev libpng-dev libcriterion-dev \
	libglib2.0-dev fonts-dejavu-core fonts-noto-cjk fonts-noto-color-emoji \
	python3-yaml

.PHONY: all deps build demo test test-sanitize stress clean bench

all: build

# Install missing packages with apt-get when root; otherwise print the line.
deps:
	@missing=""; \
	for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "gallop: installing$$missing"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	  else \
	    echo "gallop: missing Debian packages; run:" >&2; \
	    echo "  sudo apt-get install -y$$missing" >&2; \
	    exit 1; \
	  fi; \
	fi

build: deps
	cmake -S . -B $(BUILD) $(if $(CI),-DGAL_WERROR=ON)
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	rm -rf out/demo
	$(GALLOP) run instagram-portrait fixtures/trip -o out/demo --quiet
	@echo
	@echo "gallop demo: the trip set, made into Instagram portrait posts, is in out/demo/"
	@echo "  contact sheet of the set: out/demo/contact-1.jpg"
	@echo "  (see the resolved preset with: $(GALLOP) check instagram-portrait)"

test: build
	ctest --test-dir $(BUILD) --output-on-failure
ifneq ($(CI),)
	$(MAKE) test-sanitize
endif

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer.
test-sanitize: deps
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DGAL_WERROR=ON \
	  -DGAL_SANITIZE=address,undefined
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	ctest --test-dir $(BUILD_ASAN) --output-on-failure

# Crash hunting (issue 12, tests/stress/run): threads building and dropping
# the libvips operations that can use orc, then the same small batch built
# 300 times in a row at -j 4; fails on any exit status but 0 and names a killing signal.
# A few minutes on two cores; CI runs it after `make test`. STRESS_RUNS,
# STRESS_PHOTOS and STRESS_JOBS pass through the environment.
stress: build
	tests/stress/run $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) out

# The benchmark against sharp, ImageMagick and GraphicsMagick (issue 7, bench/README.md):
# installs the tools it needs, then bench/run builds gallop (Release, build-bench/),
# sharp from npm and the corpus, runs every contender and writes bench/RESULTS.md.
# BENCH_RUNS=N (default 5) and the other knobs of bench/run pass through the environment.
BENCH_PACKAGES := imagemagick graphicsmagick time libimage-exiftool-perl mate-backgrounds

bench: deps
	@missing=""; \
	for p in $(BENCH_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	command -v node >/dev/null && command -v npm >/dev/null || missing="$$missing nodejs npm"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "gallop: installing$$missing"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	  else \
	    echo "gallop: missing Debian packages; run:" >&2; \
	    echo "  sudo apt-get install -y$$missing" >&2; \
	    exit 1; \
	  fi; \
	fi
	bench/run
