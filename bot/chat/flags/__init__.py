"""Flags: a reaction that marks one exact summary version as inaccurate, on any platform, and
what follows it (thanks, a re-check, a correction). The path, in order:

- `bot.ports.chat.Reaction`: the one value an adapter makes of a platform's reaction event;
- `emoji`: which reactions are flags (matched once, at the adapter's edge);
- `loop`: one platform's `FlagLoop`, from the reaction to the answers;
- `record`: the flag recorded against the summary version the message showed, or withdrawn;
- `revisions`: the re-check, within its limits, and the corrected version kept;
- `bot.ports.chat.PlatformAnswers`: how the platform thanks, corrects or says "no change".
"""
