"""The running application: one store, its sessions, the local user; opened once per process."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date

from alfred_mcp.agent.llm.base import LLM
from alfred_mcp.agent.llm.factory import llm_from_settings
from alfred_mcp.config import Settings
from alfred_mcp.seeding import seed_if_empty
from alfred_mcp.session import SessionManager
from alfred_mcp.store.base import Store
from alfred_mcp.store.sqlite import SQLiteStore

logger = logging.getLogger(__name__)


@dataclass
class AlfredApp:
    """Store + sessions + the user calls act for (one local user on stdio)."""

    store: Store
    settings: Settings = field(default_factory=Settings)
    llm: LLM | None = None
    """The model `chat` and the headless CLI run turns with (None: clients drive turns themselves)."""
    sessions: SessionManager = field(init=False)
    _user_id: str | None = field(default=None, init=False)
    _opened: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.sessions = SessionManager(self.store)

    @classmethod
    def from_settings(cls, settings: Settings) -> AlfredApp:
        settings.db_path.parent.mkdir(parents=True, exist_ok=True)
        llm = llm_from_settings(settings.model) if settings.model else None
        return cls(store=SQLiteStore(settings.db_path), settings=settings, llm=llm)

    async def open(self) -> None:
        """Open the store, make sure the user exists, seed the demo kitchen on first run.

        Re-entrant: every open() is matched by a close(); the store closes with the last one.
        """
        self._opened += 1
        if self._opened > 1:
            return
        await self.store.open()
        self._user_id = await self.store.ensure_user(self.settings.user)
        if self.settings.seed_demo and await seed_if_empty(self.store, self._user_id, today=date.today()):
            logger.info("seeded the demo kitchen for user %r", self.settings.user)

    async def close(self) -> None:
        self._opened -= 1
        if self._opened == 0:
            await self.store.close()

    @property
    def user_id(self) -> str:
        if self._user_id is None:
            raise RuntimeError("AlfredApp.open() was not awaited")
        return self._user_id
