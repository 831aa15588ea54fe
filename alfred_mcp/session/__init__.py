"""Sessions: which conversation a call acts on, its typed documents, and the unit of work that saves it."""

from __future__ import annotations

from alfred_mcp.session.manager import SessionManager
from alfred_mcp.session.session import Session
from alfred_mcp.session.unit_of_work import CallScope, UnitOfWork, unit_of_work

__all__ = ["CallScope", "Session", "SessionManager", "UnitOfWork", "unit_of_work"]
