-- Short-lived tickets that authorize a plain browser GET (zip streams, inline previews) without headers.
-- Only the SHA-256 of a ticket is stored, so a copy of the database yields no usable download links.
CREATE TABLE download_tickets (
  id         TEXT PRIMARY KEY,              -- SHA-256 (hex) of the ticket
  user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL CHECK (kind IN ('zip', 'preview')),
  payload    TEXT NOT NULL,                 -- JSON: what the ticket grants
  expires_at INTEGER NOT NULL,
  used_at    INTEGER                        -- zip tickets are single-use
);
CREATE INDEX download_tickets_expiry ON download_tickets(expires_at);
