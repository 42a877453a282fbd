-- Upload sessions bound what storage may hold for them (issue #11, finding 2).
-- write_mode: how the client writes the staging key, fixed by the first write signed: 'put' (one PUT) or
--   'multipart' (one recorded multipart upload at a time); 'server' for sessions whose bytes the server writes
--   itself (bulk-upload), which are never signed for a client. Never both, or storage would hold the size twice.
-- sign_until: when the last write request signed for the session stops being accepted by storage (its x-amz-date
--   plus the 15 minutes of allowed clock skew). Until then a copy of that request can still land.
-- ended_at: the session is over (saved, refused, cancelled) but its row stays until sign_until, so the janitor
--   removes whatever a late request stores and, for single PUTs, the reservation keeps counting meanwhile.
ALTER TABLE upload_sessions ADD COLUMN write_mode TEXT CHECK (write_mode IN ('put', 'multipart', 'server'));
ALTER TABLE upload_sessions ADD COLUMN sign_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE upload_sessions ADD COLUMN ended_at INTEGER;
CREATE INDEX upload_sessions_open ON upload_sessions(user_id, expires_at) WHERE ended_at IS NULL;
