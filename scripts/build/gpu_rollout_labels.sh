#!/usr/bin/env bash
# Rollout labels for the position database on a lent GPU machine (one GPU, 16 cores), in one
# time-boxed call: `bgai data label --kind rollout` jobs run there until SECONDS_FOR_LABELS, keep
# every finished chunk (the label files are rewritten atomically after each), and come back as
# one archive under $OUT. Run from the repository root with runs/data/<db>/positions.npz carried:
#   bash scripts/build/gpu_rollout_labels.sh runs/data/db4 checkpoints/best_values2.pt 440
# The same shards resume anywhere (the device is not part of a label job's recipe):
#   backgame : 36 trials played to the end (back games need them: truncated ones keep the
#              net's own error), shards K/3 on the GPU;
#   contact, crashed : 36 trials truncated at 7 plies (docs/rollout.md's measured sweet spot),
#              shards 0-2 of 16 on the GPU and 3-11 on the CPUs (12-15 are left to other machines).
# A GPU job that fails falls back to the CPU for the time left. Needs python3 with torch, numpy,
# tqdm and safetensors; nothing is installed.
set -u
db=${1:?database folder}
player=${2:?player}
budget=${3:-440}
out=${OUT:-runs/gpu_out}
mkdir -p "$out" runs/logs_gpu
start=$(date +%s)
deadline=$((start + budget))
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1

left_hours() { python3 -c "print(max(0.0, ($deadline - $(date +%s)) / 3600))"; }

job() {  # job NAME DEVICE ARGS...: one label shard, on the CPU for the time left if the GPU fails
    local name=$1 device=$2
    shift 2
    python3 -m bgai data label "$db" --kind rollout --player "$player" "$@" \
        --device "$device" --hours "$(left_hours)" >"runs/logs_gpu/$name.log" 2>&1 && return
    if [ "$device" != cpu ] && [ $((deadline - $(date +%s))) -gt 60 ]; then
        echo "falling back to the CPU" >>"runs/logs_gpu/$name.log"
        python3 -m bgai data label "$db" --kind rollout --player "$player" "$@" \
            --device cpu --hours "$(left_hours)" >>"runs/logs_gpu/$name.log" 2>&1
    fi
}

nvidia-smi -L
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"
(timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_train_data.py -k cuda \
    >runs/logs_gpu/cuda_tests.log 2>&1; echo "rc $?" >>runs/logs_gpu/cuda_tests.log) &
for k in 0 1 2; do
    job "backgame_$k" cuda --trials 36 --classes backgame --shard "$k/3" --chunk 96 &
    job "contact_$k" cuda --trials 36 --truncate 7 --classes contact,crashed --shard "$k/16" --chunk 768 &
done
for k in 3 4 5 6 7 8 9 10 11; do
    job "contact_$k" cpu --trials 36 --truncate 7 --classes contact,crashed --shard "$k/16" --chunk 32 &
done
# Jobs stop at the first chunk end after the deadline; a chunk still running 70 s later is lost.
while [ "$(jobs -r | wc -l)" -gt 0 ] && [ "$(date +%s)" -lt $((deadline + 70)) ]; do
    sleep 5
    if [ $((($(date +%s) - start) % 60)) -lt 5 ]; then
        nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader >>runs/logs_gpu/nvidia_smi.log
    fi
done
pkill -f "bgai data label" || true
sleep 2
tar czf "$out/labels.tgz" "$db/labels" runs/logs_gpu
for f in runs/logs_gpu/*.log; do echo "== $f"; tr '\r' '\n' <"$f" | grep -v '^$' | tail -2; done
echo "seconds $(($(date +%s) - start))"
