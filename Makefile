# The two commands that matter: `make demo` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# Locations of the sandbox's demo account, when it is first seeded.
DEMO_LOCATIONS ?= 300
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint worker clean-data bench

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The settings file the demo reads (the settings' ENV_FILE); tests point it elsewhere.
ENV_FILE ?= .env
NEW_KEY = $$($(BIN)/python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')

# Writes an encryption key for API credentials into .env the first time, so the demo never
# runs on a key that lives in the repository.
$(ENV_FILE):
	@echo "API_KEY_ENCRYPTION_KEYS=$(NEW_KEY)" > $(ENV_FILE)
	@echo "Wrote a new API_KEY_ENCRYPTION_KEYS to $(ENV_FILE)"

# One foreground process (demo/management/commands/demo_run.py) prepares the data, starts the
# web server and a worker with the schedule, prints the login once the portal answers, runs the
# first sync, and stops them all on Ctrl-C (make's SIGTERM reaches it too: `exec`, no shell in
# between). Warnings and errors only:
# `LOG_LEVEL=INFO ACCESS_LOG=1 make demo` shows everything.
demo: setup $(ENV_FILE)
	@grep -q '^API_KEY_ENCRYPTION_KEYS=.\+' $(ENV_FILE) || echo "API_KEY_ENCRYPTION_KEYS=$(NEW_KEY)" >> $(ENV_FILE)
	@exec env ENV_FILE="$(abspath $(ENV_FILE))" LOG_LEVEL="$${LOG_LEVEL:-WARNING}" \
	$(BIN)/python manage.py demo_run --port $(PORT) --locations $(DEMO_LOCATIONS)

test: setup
	$(BIN)/python -m pytest

# Benchmarks (docs/performance.md). They need PostgreSQL and Redis on 127.0.0.1; each prints
# its figures against the targets. BENCH_FLAGS passes options to all three, e.g. --json.
# The pages are measured first: the other two write (the sandbox's seed, a whole sync), and the
# checkpoints and vacuums they leave behind would slow the pages measured after them.
bench: setup
	$(BIN)/python bench/web.py $(BENCH_FLAGS)
	$(BIN)/python bench/sandbox.py $(BENCH_FLAGS)
	$(BIN)/python bench/sync.py $(BENCH_FLAGS)

# Style, and the layers of docs/architecture.md (.importlinter): an import up a layer fails.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/lint-imports

worker: setup
	$(BIN)/celery -A portal worker --beat --loglevel INFO

clean-data:
	rm -rf data/portal.sqlite3* data/broker data/cache data/celerybeat-schedule*
