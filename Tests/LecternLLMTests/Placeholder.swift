// Keeps the target non-empty until its first real file lands; safe to delete then.
