"""Protocol-level fakes (real HTTP on 127.0.0.1) for GitHub, OpenAI and friends."""

from tests.fakes.github import FakeFile, FakeGitHub, FakeIssue, FakePR
from tests.fakes.http_server import FakeHTTPServer, Fault, RecordedRequest, Response
from tests.fakes.openai_api import FakeOpenAI, default_responder

__all__ = [
    "FakeFile",
    "FakeGitHub",
    "FakeHTTPServer",
    "FakeIssue",
    "FakeOpenAI",
    "FakePR",
    "Fault",
    "RecordedRequest",
    "Response",
    "default_responder",
]
