# gallop: the set-up commands of the README, plus their parts.
#   make demo   install what is missing, build, run the main job on fixtures/
#   make install [PREFIX=/usr/local] [DESTDIR=]  the binary, presets, man page
#               and shell completions
#   make test   install what is missing, build, run every test
#               (with CI set, also the whole suite under ASan + UBSan, the
#               merge's threads under TSan, and every fuzz target for 30 s)
#   make stress hundreds of small runs at -j 4 that must not crash (issue 12)
#   make schema rewrite presets/gallop.schema.json and the key tables of
#               docs/presets.md from the parameter tables (commit them)
#   make test-slurm  install Slurm and munge if missing, start a throwaway
#               single-node Slurm, run the trip set as a 4-task job array of
#               shards and a merge job, compare with one run (issue 16)
#   make fuzz   every fuzz target under libFuzzer for FUZZ_SECONDS (60) each
#   make bench-quality  output.quality auto against fixed 85 and sharp
#               (issue 42): its section of bench/RESULTS.md
#   make bench-site  a 10,000-photo, 200-album gallery: built, rerun, rerun
#               after one album.yaml edit (issue 40): its section of RESULTS.md

BUILD       ?= build
BUILD_ASAN  ?= build-asan
BUILD_TSAN  ?= build-tsan
BUILD_FUZZ  ?= build-fuzz
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
GALLOP      := $(BUILD)/cmd/gallop

# Everything gallop needs from Debian, to build, test and demo (libheif-dev: tests forge HEICs
# with thumbnails; exiftool:
# the metadata tests read outputs back with an independent reader).
DEBIAN_PACKAGES := cmake make gcc pkg-config \
	libvips-dev libvips-tools libheif-dev libexif-dev libraw-dev libyaml-dev libpng-dev liblcms2-dev libxml2-dev libxxhash-dev libsqlite3-dev libcmark-dev libarchive-dev libcriterion-dev \
	libglib2.0-dev fonts-dejavu-core fonts-noto-cjk fonts-noto-color-emoji \
	nodejs npm python3-yaml libimage-exiftool-perl chromium

# What `make fuzz` needs besides: clang with libFuzzer and the sanitizer
# runtimes, llvm-symbolizer for readable reports, and LLVM's OpenMP
# (libraw_r links with -fopenmp, which clang takes as libomp).
FUZZ_PACKAGES := clang libclang-rt-14-dev llvm libomp-14-dev
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=

.PHONY: all deps build install demo test test-sanitize stress test-slurm fuzz clean bench bench-scale bench-quality bench-site \
	schema schema-deps gallery-deps

all: build

# Install the Debian packages $(1) that are missing, with apt-get when root;
# otherwise print the line to run, and fail. npm counts as there when the
# command is (a nodejs from elsewhere may bring its own, which conflicts
# with Debian's).
define install-missing
	@missing=""; \
	for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" && continue; \
	  [ $$p = npm ] && command -v npm >/dev/null && continue; \
	  [ $$p = nodejs ] && command -v node >/dev/null && continue; \
	  missing="$$missing $$p"; \
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
endef

deps:
	$(call install-missing,$(DEBIAN_PACKAGES))

build: deps
	cmake -S . -B $(BUILD) $(if $(CI),-DGAL_WERROR=ON)
	cmake --build $(BUILD) -j $(JOBS)

# Install as a Debian tool does: PREFIX/bin/gallop, the shipped presets in
# PREFIX/share/gallop/presets (found from the binary), gallop(1), and the
# bash and zsh completions; DESTDIR stages it all (for a package).
PREFIX ?= /usr/local

install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# The demo site's albums: fixtures/trip stays flat (tests and benches use
# it), so the album folders are laid out here, from
# fixtures/trip-albums/layout.tsv, with each folder's album.yaml.
DEMO_PHOTOS := out/demo-photos

demo: build
	rm -rf out/demo $(DEMO_PHOTOS)
	grep -v '^#' fixtures/trip-albums/layout.tsv | while IFS="$$(printf '\t')" read -r album photos; do \
	  mkdir -p "$(DEMO_PHOTOS)/$$album" && \
	  for p in $$photos; do cp "fixtures/trip/$$p" "$(DEMO_PHOTOS)/$$album/" || exit 1; done; \
	done
	cd fixtures/trip-albums && find . -name album.yaml -exec cp --parents {} ../../$(DEMO_PHOTOS)/ \;
	$(GALLOP) run gallery $(DEMO_PHOTOS) -o out/demo --quiet \
	  --set 'gallery.description=A marathon trip to North Korea, in 23 photos' \
	  --set 'gallery.author=Jen Loong' --set gallery.download=largest
	$(GALLOP) run fixtures/trip.yaml -o out/demo/instagram --quiet
	@echo
	@echo "gallop demo: the trip set"
	@echo "  as a web gallery: open out/demo/index.html (an album per folder of $(DEMO_PHOTOS),"
	@echo "  each described by its album.yaml)"
	@echo "  made into Instagram portrait posts: out/demo/instagram/"
	@echo "  contact sheet of the posts: out/demo/instagram/contact-1.jpg"
	@echo "  (the posts' preset, fixtures/trip.yaml, extends the shipped instagram-portrait with the"
	@echo "  runner's logo; see the resolved presets with: $(GALLOP) check gallery; $(GALLOP) check fixtures/trip.yaml)"

# ajv, for the schema test (tests/schema/package.json; exact versions from
# its package-lock.json).
schema-deps: deps
	npm ci --prefix tests/schema --no-audit --no-fund

# puppeteer-core and axe-core, for the gallery's browser test, and lighthouse
# (tests/gallery/package.json; exact versions from its package-lock.json).
# puppeteer-core brings no browser: the test drives Debian's chromium.
gallery-deps: deps
	npm ci --prefix tests/gallery --no-audit --no-fund

test: build schema-deps gallery-deps
	ctest --test-dir $(BUILD) --output-on-failure
ifneq ($(CI),)
	$(MAKE) test-sanitize
	$(MAKE) fuzz FUZZ_SECONDS=30
endif

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer; then
# ThreadSanitizer over the threads of a merge and of reading a manifest
# (tests/sanitizers/threads: a few seconds, on the scale bench's empty photos).
test-sanitize: build schema-deps gallery-deps
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DGAL_WERROR=ON \
	  -DGAL_SANITIZE=address,undefined
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	ctest --test-dir $(BUILD_ASAN) --output-on-failure
	tests/sanitizers/threads $(BUILD) $(BUILD_TSAN)

# Crash hunting (issue 12, tests/stress/run): threads building and dropping
# the libvips operations that can use orc, then the same small batch built
# 300 times in a row at -j 4; fails on any exit status but 0 and names a killing signal.
# A few minutes on two cores; CI runs it after `make test`. STRESS_RUNS,
# STRESS_PHOTOS and STRESS_JOBS pass through the environment.
stress: build
	tests/stress/run $(BUILD)

schema: build
	tests/schema/regen $(GALLOP) .

# Sharded runs on a real Slurm (issue 16, tests/slurm/README.md): installs
# Slurm, munge and jq if missing, then tests/slurm/run starts munged,
# slurmctld and slurmd of its own (files in a temp folder, free ports),
# runs `gallop run --shard auto` as `sbatch --array=0-3` and `gallop merge`
# after it, compares with one run and stops every daemon. About 20 s.
SLURM_PACKAGES := slurm-wlm munge jq

test-slurm: build
	$(call install-missing,$(SLURM_PACKAGES))
	tests/slurm/run $(BUILD)

# Every fuzz target (tests/fuzz) under libFuzzer, ASan and UBSan, built with
# clang in $(BUILD_FUZZ)/, for FUZZ_SECONDS each; fails on any finding and
# prints its reproducer. FUZZ_TARGETS="preset table" runs only those.
fuzz:
	$(call install-missing,$(DEBIAN_PACKAGES) $(FUZZ_PACKAGES))
	cmake -S . -B $(BUILD_FUZZ) -DCMAKE_C_COMPILER=clang -DGAL_FUZZ=ON -DGAL_TESTS=OFF \
	  $(if $(CI),-DGAL_WERROR=ON)
	cmake --build $(BUILD_FUZZ) -j $(JOBS)
	tests/fuzz/run $(BUILD_FUZZ) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ) out

# The benchmark against sharp, ImageMagick and GraphicsMagick (issue 7, bench/README.md):
# installs the tools it needs, then bench/run builds gallop (Release, build-bench/),
# sharp from npm and the corpus, runs every contender and writes bench/RESULTS.md.
# BENCH_RUNS=N (default 5) and the other knobs of bench/run pass through the environment.
BENCH_PACKAGES := imagemagick graphicsmagick time libimage-exiftool-perl mate-backgrounds

bench: deps
	$(call install-missing,$(BENCH_PACKAGES) nodejs npm)
	bench/run

# output.quality auto against fixed 85 and sharp's defaults (issue 42, bench/quality):
# bytes, scores, time, the metric against scikit-image, a picture; its section of
# bench/RESULTS.md. About 15 minutes on two cores.
bench-quality: deps
	$(call install-missing,$(BENCH_PACKAGES) nodejs npm time python3-skimage)
	bench/quality

# The site bench (issue 40, bench/site): a 10,000-photo, 200-album gallery of small JPEGs
# made with vips, built, rerun and rerun after one album.yaml edit; its section of
# bench/RESULTS.md. About 3 minutes on two cores.
bench-site: deps
	bench/site

# The scale benchmark (issue 16, bench/scale/README.md): planning a shard, merging 100
# shards' parts and a dry run over the merged manifest, timed against the photo count
# (10k, 100k, 1M photos), by simulation (empty files on a tmpfs, no pixels). Writes
# bench/SCALE.md; about 15 minutes on two cores. SCALE_COUNTS and the other knobs of
# bench/scale/run pass through the environment.
bench-scale: deps
	$(call install-missing,time python3 sqlite3)
	bench/scale/run
