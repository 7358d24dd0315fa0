"""Where a league's games run: the executor contract (:mod:`~harness.run.base`), the local
back ends (:mod:`~harness.run.local`: in this process, worker processes) and Dask
(:mod:`~harness.run.dask`)."""
