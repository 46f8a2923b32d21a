"""Chat platform adapters: each turns the platform-neutral core into one platform's bot."""
