# The two commands that matter: `make demo` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint worker clean-data bench

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Writes an encryption key for API credentials into .env the first time, so the demo never
# runs on a key that lives in the repository.
.env:
	@echo "API_KEY_ENCRYPTION_KEYS=$$($(BIN)/python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')" > .env
	@echo "Wrote a new API_KEY_ENCRYPTION_KEYS to .env"

# The provider (here the embedded sandbox) delivers events to the portal at this address.
DEMO_ENV := DEBUG=1 PORTAL_PUBLIC_URL=http://127.0.0.1:$(PORT)

demo: setup .env
	@grep -q '^API_KEY_ENCRYPTION_KEYS=.\+' .env || echo "API_KEY_ENCRYPTION_KEYS=$$($(BIN)/python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')" >> .env
	$(DEMO_ENV) $(BIN)/python manage.py migrate --no-input
	$(DEMO_ENV) $(BIN)/python manage.py demo_setup --port $(PORT)
	@echo "Starting the portal on http://127.0.0.1:$(PORT)/ and a Celery worker; Ctrl-C stops both."
	@trap 'kill 0' INT TERM EXIT; \
	$(DEMO_ENV) $(BIN)/celery -A portal worker --beat --loglevel WARNING --concurrency 2 & \
	$(DEMO_ENV) $(BIN)/python manage.py runserver 127.0.0.1:$(PORT) --noreload & \
	$(DEMO_ENV) $(BIN)/python manage.py demo_sync --port $(PORT); \
	wait

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
