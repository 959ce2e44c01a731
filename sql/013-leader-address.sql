-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 013-leader-address.sql: where clients reach the leader (kaid.yaml
-- advertise).  A standby forwards the connections it accepts there, so
-- clients may list every kaid (controller: a:6820,b:6820) or reach any
-- one through a Service; '' until a kaid that knows this leads.

ALTER TABLE leader ADD COLUMN address text NOT NULL DEFAULT '';
