-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 023-gpu-devices.sql: a GPU share over more than one device (KAI's
-- gpu-fraction-num-devices, doc/k8s-native.md).  gpu_devices is how many
-- distinct devices of one node each task's share (gpu_fraction or
-- gpu_memory_mb) is on, the share on each; 0 (one device) for the rows
-- already here.  allocations.gpu_mask names the devices and
-- allocations.gpu_fraction stays the share of each, so a task holds
-- gpu_fraction x the devices of its mask.

ALTER TABLE jobs ADD COLUMN gpu_devices integer NOT NULL DEFAULT 0
    CHECK (gpu_devices BETWEEN 0 AND 64);
