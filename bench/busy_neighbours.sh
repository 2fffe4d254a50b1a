#!/bin/bash
# Busy neighbours for the stdio benchmarks (bench/README.md, "Busy neighbours"): on the same
# two cores, a socat pty pair, a reading written into one end every millisecond, and cat
# draining the other end. Runs until killed (pkill -f busy_neighbours.sh; pkill socat).
socat -d pty,raw,echo=0,link=/tmp/labgate_busy_a pty,raw,echo=0,link=/tmp/labgate_busy_b &
sleep 0.5
(while true; do echo "+1.234567E+00"; sleep 0.001; done > /tmp/labgate_busy_a) &
cat /tmp/labgate_busy_b > /dev/null &
wait
