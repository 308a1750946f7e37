-- Attempts: one row per money-moving call, claimed before it is sent.
-- Times are milliseconds since 1970 (UTC), the same on every engine.
CREATE TABLE openpay_attempts (
    charge_id      TEXT   NOT NULL DEFAULT '',
    attempt_key    TEXT   NOT NULL,
    kind           TEXT   NOT NULL,
    variant        TEXT   NOT NULL,
    customer_id    TEXT   NOT NULL DEFAULT '',
    amount         TEXT   NOT NULL,
    currency       TEXT   NOT NULL DEFAULT '',
    source         TEXT   NOT NULL DEFAULT '',
    request        TEXT   NOT NULL,
    client_ip      TEXT   NOT NULL DEFAULT '',
    state          TEXT   NOT NULL,
    transaction_id TEXT   NOT NULL DEFAULT '',
    error_code     BIGINT NOT NULL DEFAULT 0,
    error_text     TEXT   NOT NULL DEFAULT '',
    result         TEXT   NOT NULL DEFAULT '',
    tries          BIGINT NOT NULL DEFAULT 0,
    created_ms     BIGINT NOT NULL,
    updated_ms     BIGINT NOT NULL,
    next_ms        BIGINT NOT NULL,
    lease_owner    TEXT   NOT NULL DEFAULT '',
    lease_ms       BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (charge_id, attempt_key)
);
CREATE INDEX openpay_attempts_open ON openpay_attempts (next_ms) WHERE state IN ('pending', 'unknown');
CREATE INDEX openpay_attempts_final ON openpay_attempts (updated_ms) WHERE state IN ('made', 'declined', 'refused');
-- Webhook events: claimed while a process handles one, done once handled.
CREATE TABLE openpay_events (
    event_key  TEXT   NOT NULL PRIMARY KEY,
    state      TEXT   NOT NULL,
    until_ms   BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL
);
CREATE INDEX openpay_events_updated ON openpay_events (updated_ms);
