"""Both games as reinforcement-learning environments (docs/research.md).

* :mod:`~harness.envs.aec`: a PettingZoo AEC environment per game and variant;
* :mod:`~harness.envs.single`: a Gymnasium environment, one seat against tourney bots;
* :mod:`~harness.envs.policy`: a numpy policy trained by self-play and written as a bot
  directory that enters a league like any other bot.

The action spaces and observation tensors they use live in :mod:`games.interop`, so that a
sandboxed bot (which imports ``games`` but not ``harness``) encodes exactly as they do. These
modules need the ``rl`` extra (``pip install 'tourney-harness[rl]'``) except ``policy``.
"""
