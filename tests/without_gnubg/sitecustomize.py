"""Started Pythons of a ``BGAI_TEST_WITHOUT_GNUBG=1`` test run cannot import gnubg either."""

import block_gnubg

block_gnubg.install()
