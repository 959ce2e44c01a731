/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaistep.h: the clients' main()s as kaistep links them.
 *
 * pod/local.mk compiles each client's file with -Dmain=kaistep_NAME and
 * this header forced in (-include), so one static program holds them all
 * and kaistep.c picks one by the name it was called by.
 */
#ifndef KAI_POD_KAISTEP_H
#define KAI_POD_KAISTEP_H

int kaistep_ksubmit(int argc, char **argv);
int kaistep_kqueue(int argc, char **argv);
int kaistep_kcancel(int argc, char **argv);
int kaistep_kctl(int argc, char **argv);
/* Job steps (kaistep_srun.c, kaistep_agent.c). */
int kaistep_srun(int argc, char **argv);
int kaistep_agent(int argc, char **argv);
int kaistep_step_end(int argc, char **argv);
/* ptyserve.c: the pod's end of an interactive session (ksrun(1)) */
int kaistep_ptyserve(int argc, char **argv);

#endif /* KAI_POD_KAISTEP_H */
