# gpucluster.fabric developer entry points. `make test` is what CI runs.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
# Targets run strictly in the order they are listed, even under `make -j`; `test` runs its two chains of
# tiers side by side itself (see there).
.NOTPARALLEL:

# Resolved before .venv/bin is put first on PATH, so the venv is always built
# from the system interpreter.
SYSTEM_PYTHON := $(shell command -v python3)
VENV := $(CURDIR)/.venv
export PATH := $(VENV)/bin:$(PATH)
# Python caches the bytecode of this checkout's modules (__pycache__, ignored by git): every emulator command, module
# and playbook of the tests is a process of its own, which would otherwise compile what it imports each time.
unexport PYTHONDONTWRITEBYTECODE

# Lab packages (see bindep.txt): libyang2 with its headers, gcc and python3-dev are what pip needs to
# build the libyang Python bindings (requirements.txt), so they come before the venv. Plus shellcheck, which `ansible-test sanity`
# silently skips its shellcheck test without.
# sudo: the twin's switches' login user reaches root with it, as SONiC's admin does (scripts/twin_login_user.sh).
APT_PACKAGES := frr frr-pythontools lldpd redis-server iproute2 nftables graphviz shellcheck libyang2 libyang2-dev gcc python3-dev kea-dhcp4-server isc-dhcp-client curl sudo
COLLECTION_LINK := collections/ansible_collections/gpucluster/fabric
# ansible-test only runs inside .../ansible_collections/<namespace>/<name>.
SANITY_ROOT := build/sanity/ansible_collections/gpucluster/fabric
SANITY_PYTHON := 3.11
# ansible-test (core 2.19) bootstraps pip 24.2 into its sanity venvs with a
# get-pip.py it downloads from a host that is unreachable here; it uses a
# cached copy first, so seed the cache with an offline equivalent.
ANSIBLE_TEST_GET_PIP := $(HOME)/.ansible/test/cache/get_pip_24_2.py
# Sanity tests that cannot run on this offline, container-less machine:
#   (none so far)
SANITY_SKIP :=

# What each tier needs first; `make test` sets it empty in the two chains it starts, having set up once itself
# (two setups at once would race on the venv and the collection link).
SETUP ?= setup

.PHONY: setup system-packages collection-link test unit integration awx beside system system-lab system-other molecule sanity lint \
	demo bench docs golden ee-context clean

setup: system-packages $(VENV)/.stamp collection-link

# FRR, lldpd and Kea run per network namespace in the lab and tests, so the packages' own
# system-wide services are stopped and disabled right after installing them.
system-packages:
	@missing=""; \
	for pkg in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' "$$pkg" 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$pkg"; \
	done; \
	if [ "$$(id -u)" -ne 0 ]; then \
	  if [ -n "$$missing" ]; then echo "setup: not root, skipping apt-get install of:$$missing (install them yourself)"; fi; \
	  exit 0; \
	fi; \
	if [ -z "$$missing" ]; then \
	  echo "setup: Debian packages present: $(APT_PACKAGES)"; \
	elif ! command -v apt-get >/dev/null; then \
	  echo "setup: no apt-get, skipping install of:$$missing (install them yourself)"; \
	else \
	  apt-get update; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi; \
	for svc in frr lldpd kea-dhcp4-server; do \
	  if systemctl is-enabled --quiet "$$svc" 2>/dev/null; then \
	    echo "setup: disabling the system-wide $$svc service"; \
	    systemctl disable --now "$$svc" 2>/dev/null || true; \
	  fi; \
	  case " $$missing " in *" $$svc "*) \
	    if [ ! -d /run/systemd/system ]; then \
	      service "$$svc" stop >/dev/null 2>&1 || true; \
	      update-rc.d "$$svc" disable >/dev/null 2>&1 || true; \
	    fi;; \
	  esac; \
	done; \
	scripts/twin_login_user.sh

# pip runs again only when a requirements file changes.
$(VENV)/.stamp: requirements.txt requirements-dev.txt
	test -x $(VENV)/bin/python || $(SYSTEM_PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -r requirements-dev.txt
	touch $@

# Makes this checkout importable as gpucluster.fabric without Galaxy
# (ansible.cfg: collections_path = ./collections).
collection-link:
	@mkdir -p $(dir $(COLLECTION_LINK))
	@ln -sfn ../../.. $(COLLECTION_LINK)

# Two chains side by side, each in its listed order: the namespace tiers (system, then molecule), which wait on FRR,
# lldpd, BGP timers and traffic as much as they compute, and the code tiers (unit, integration, sanity, lint), which
# mostly compute, then the AWX tier and the twin tests of BESIDE (their twins have namespaces of their own, so they
# run beside the system tier). Each tier's time in the latest run is in docs/performance.md ("Test tiers"). The system
# tier is not split further: a second namespace chain beside the first (system-lab, system-other) measured no faster,
# the two competing for the same two cores.
# The namespace tiers' lines are prefixed [twin]; make test fails when either chain fails, after both have ended.
test: setup
	@( $(MAKE) --no-print-directory SETUP= system molecule 2>&1 | sed -u 's/^/[twin] /' ) & twin=$$!; \
	code=0; $(MAKE) --no-print-directory SETUP= unit integration sanity lint awx beside || code=$$?; \
	wait $$twin || code=$$?; \
	if [ $$code -ne 0 ]; then echo "make test: failed (see the tier above that failed; [twin] lines are system and molecule)"; fi; \
	exit $$code

unit: $(SETUP)
	pytest tests/unit -q

integration: $(SETUP)
	pytest tests/integration -q --durations=15

# Jobs run as AWX runs them (docs/awx.md, "How this is tested"): project and inventory syncs, a private data directory
# per job, ansible-runner; every job template against a twin of the lab under the cluster name awx (root; skipped with
# the reason otherwise), and validation sliced 4 ways against the unsliced run.
awx: $(SETUP)
	pytest tests/awx -q --durations=10

# Tiers that need root (network namespaces): the GPU server stages against a Redfish emulator and
# namespaces, the virtual twin of the lab, and fault injection on it. Each test skips with its
# reason when not root or when FRR/lldpd are missing.
# --durations: the slowest tests of the tier in every run's log (docs/performance.md, "Test tiers").
system: $(SETUP)
	pytest tests/server tests/twin tests/ztp $(addprefix --ignore=,$(BESIDE)) -q --durations=25

# Twin tests of clusters of their own that run in the code chain, after the AWX tier, to even out the two chains:
# the rollout waves on twin-256 under traffic, the Cumulus spare swap and growth (cluster cspr), the Cumulus frontend
# of cumulus-lab (cluster cfe) and eos-lab deployed and validated by roles/eos_deploy (cluster eosdeploy).
BESIDE := tests/twin/test_rollout_waves_twin.py tests/twin/test_cumulus_spare_growth_twin.py \
	tests/twin/test_cumulus_frontend_twin.py tests/twin/test_eos_deploy_twin.py
beside: $(SETUP)
	pytest $(BESIDE) -q --durations=10

# The system tier in two parts that can run at once, on a machine with cores to spare: the twin tests of clusters of
# their own (SYSTEM_OTHER), and the rest, which share the lab twin or the machine's ZTP and server namespaces.
SYSTEM_OTHER := tests/twin/test_cumulus_twin.py tests/twin/test_cumulus_spare_growth_twin.py tests/twin/test_spare_growth_twin.py \
	tests/twin/test_eos_twin.py tests/twin/test_eos_deploy_twin.py
system-lab: $(SETUP)
	pytest tests/server tests/twin tests/ztp $(addprefix --ignore=,$(SYSTEM_OTHER)) -q --durations=25

system-other: $(SETUP)
	pytest $(SYSTEM_OTHER) -q --durations=15

# Molecule, a scenario per deploy role (extensions/molecule/), each a twin of its own cluster up, deploy.yml, idempotence,
# verify, destroy: twin_lab (SONiC, the lab; deploy.yml redeploys the leaf prepare drifted), cumulus_twin and eos_twin
# (two leaves and two spines booted from the factory configuration, deployed through the NVUE API and eAPI).
# Molecule (26) looks for a scenario named default first and, finding none, logs CRITICAL "'.../default/molecule.yml'
# glob failed. Exiting." from an exception it then catches and goes on (command/base.py): not a failure, so that
# line is dropped (pipefail keeps molecule's own exit status).
MOLECULE_SCENARIOS := twin_lab cumulus_twin eos_twin
molecule: $(SETUP)
	@if [ "$$(id -u)" -ne 0 ]; then echo "molecule: skipped, the twin needs root"; \
	else for scenario in $(MOLECULE_SCENARIOS); do \
	  molecule test -s $$scenario 2>&1 | sed -u "/molecule\/default\/molecule.yml' glob failed/d"; \
	done; fi

# Sanity runs on a copy of the working tree (tracked and untracked files, minus
# ignored ones), so uncommitted work is checked too.
sanity: $(SETUP)
	rm -rf build/sanity
	mkdir -p $(SANITY_ROOT)
	git ls-files -z --cached --others --exclude-standard \
	  | tar --null --files-from=- --ignore-failed-read -cf - \
	  | tar -xf - -C $(SANITY_ROOT)
	@# ansible-test lists content through the nearest enclosing .git; give the
	@# copy its own index, or it finds this repo's, where build/ is ignored.
	cd $(SANITY_ROOT) && git init -q && git add -A
	test -e $(ANSIBLE_TEST_GET_PIP) || install -D -m 0644 .ci/ansible_test_get_pip.py $(ANSIBLE_TEST_GET_PIP)
	cd $(SANITY_ROOT) && ansible-test sanity --local --python $(SANITY_PYTHON) $(SANITY_SKIP)

# The layering of the Python library (scripts/check_imports.py): no import cycle between modules or packages, no
# import up a layer of docs/architecture.md's table, no neutral module importing a NOS home (nos/<name>/) or the
# twin; no NOS named outside its home (check_nos_names.py); no device command in neutral code
# (check_neutral_commands.py); no module over 300 lines or function over 60 that docs/architecture.md does not name
# (check_sizes.py). One line per offence.
lint: $(SETUP)
	$(VENV)/bin/python scripts/check_imports.py
	$(VENV)/bin/python scripts/check_nos_names.py
	$(VENV)/bin/python scripts/check_neutral_commands.py
	$(VENV)/bin/python scripts/check_sizes.py
	@# ansible-lint puts ~/.ansible/collections before the checkout, where Molecule installs its copy of this
	@# collection: a copy from an earlier run would shadow modules added since. A home of its own under build/.
	rm -rf build/lint-home && mkdir -p build/lint-home
	HOME=$(CURDIR)/build/lint-home ansible-lint

# The main job on the example lab: plan it, then build every switch config and the build documents.
demo: setup
	ansible-inventory -i inventories/lab --graph
	ansible-playbook -i inventories/lab playbooks/plan.yml
	ansible-playbook -i inventories/lab playbooks/build.yml
	@echo "demo: plan, configs and documents of the lab are under build/lab/"

bench: setup
	$(VENV)/bin/python tests/bench/run_bench.py

# docs/spec.md and docs/topology.schema.json are generated from the spec schema; unit tests fail when stale.
docs: setup
	$(VENV)/bin/python scripts/gen_spec_doc.py

# Accept reviewed changes of rendered output: rewrite every golden file, then review `git diff tests/golden`.
golden: setup
	GOLDEN_UPDATE=1 pytest tests/unit tests/integration -q

# The execution environment's build context (context/): this collection's tarball plus
# ansible-builder's output; then `podman build -t gpucluster-fabric-ee context/` (docs/awx.md).
ee-context: setup
	rm -rf build/dist
	ansible-galaxy collection build --output-path build/dist .
	ansible-builder create --file execution-environment.yml --context context

clean:
	rm -rf build .venv collections
