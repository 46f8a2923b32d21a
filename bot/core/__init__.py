"""The core: values (dataclasses and enums), errors, the day window, parsing, settings, the clock.

May import: the standard library only (and platformdirs/dotenv for settings); nothing of prdigest.
"""
