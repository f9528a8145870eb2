"""Benchmarks (``make bench``): each ``bench/bench_*.py`` module has a ``main()`` that prints its
measurements. Benchmarks measure; they never fail a build (timing is not tested in ``make test``)."""
