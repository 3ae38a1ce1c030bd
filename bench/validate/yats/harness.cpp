// Spec 1 §3.1's main experiment built from luayats's own objects (TCPIPsend, TCPIPrec,
// CBRFrame, AAL5Send, AAL5Rec, MuxEPD) without the Lua layer: the fields the Lua constructors
// set are set here, then act()/connectact() as yats/tcpip.lua does. Build with build.sh (the
// YATS sources come from a luayats checkout and are never copied into this repository).
// Usage: yats RTOMIN_S SEED B T WND SLOTS FRETR AAL5BUF [TRACE]; env GAPS=1 prints the gaps,
// EVLOG=1 logs drops and segments to stderr (LOGRETR=1: timeouts, YATS's own log).
#include <vector>
#include <algorithm>
#include "defs.h"
extern void fill_type_check_table(void);
#include "sim.h"
#include "tcpipsend.h"
#include "tcpiprec.h"
#include "cbrframe.h"
#include "aal5send.h"
#include "aal5rec.h"
#include "mux.h"

// MuxEPD: its class declaration and late() are taken from epdmux.c by build.sh.
#include "epd_class.inc"
#include "epd_late.inc"

// DELAY (env, slots): a delay line on the data path after the multiplexer and on each ACK
// path (0: none, as spec 1 §3.1). Items are released in the multiplexer's late phase.
struct Line {
  std::vector<std::pair<tim_typ, data *> > q;
  size_t head = 0;
  root *to = NULL;
  int inp = 0;
  void flush() {
    while (head < q.size() && q[head].first <= SimTime) {
      data *d = q[head].second;
      ++head;
      to->rec(d, inp);
    }
    if (head > 4096 && head == q.size()) { q.clear(); head = 0; }
  }
};
static long g_delay = 0;
static std::vector<Line *> g_lines;

struct Obs : public muxEPD {
  // per-slot observation after the late phase
  unsigned long long sent = 0, arrivals = 0, idle_run = 0;
  std::vector<unsigned> gaps;
  unsigned gapmin = 1000;
  std::vector<unsigned> qtrace;  // q at end of each slot (first N slots)
  unsigned traceN = 0;
  void late(event *e) {
    int n = inp_ptr - inp_buff;
    arrivals += n;
    if (evlog) late_logged(n);
    else muxEPD::late(e);
    if (n == 0 && q.getlen() == 0) {
      ++idle_run;
    } else {
      if (idle_run >= gapmin) gaps.push_back(idle_run);
      idle_run = 0;
    }
    if (qtrace.size() < traceN) qtrace.push_back(q.getlen());
    for (size_t k = 0; k < g_lines.size(); ++k) g_lines[k]->flush();
  }
  void early(event *e) {
    ++sent;
    mux::early(e);
  }
  // EVLOG: muxEPD::late's rules (same random order, same my_rand() calls, checked to give
  // identical runs) with one stderr line per frame and cause when a frame loses cells:
  // "DROP t=<slot> c=<vc> frame=<n-th frame of the vc at the mux> cause=<...> q=<queue>".
  // A refused frame's later cells are "RefusedRest"; "PpdTail" follows an overflow.
  bool evlog = false;
  int fr[64] = {0}, lastf[64] = {0}, lastc[64] = {0};
  void late_logged(int n) {
    while (n != 0) {
      inpstruct *p = n > 1 ? inp_buff + (my_rand() % n) : inp_buff;
      aal5Cell *pc = (aal5Cell *) p->pdata;
      int vc = pc->vci, ql = q.getlen(), cause = 0;
      if (vciFirst[vc]) {
        vciFirst[vc] = FALSE;
        ++fr[vc];
        vciOK[vc] = ql >= epdThresh ? FALSE : TRUE;
        if (!vciOK[vc]) cause = 3;
      } else if (!vciOK[vc]) {
        cause = lastc[vc] == 1 || lastc[vc] == 2 ? 2 : 4;
      }
      if (pc->pt == 1) vciFirst[vc] = TRUE;
      if (vciOK[vc]) {
        if (!q.enqueue(pc)) { dropItem(p); vciOK[vc] = FALSE; cause = 1; }
      } else dropItem(p);
      if (cause && (lastf[vc] != fr[vc] || lastc[vc] != cause)) {
        lastf[vc] = fr[vc];
        lastc[vc] = cause;
        static const char *nm[] = {"", "Overflow", "PpdTail", "EpdRefusal", "RefusedRest"};
        fprintf(stderr, "DROP t=%d c=%d frame=%d cause=%s q=%d\n", SimTime, vc, fr[vc], nm[cause], ql);
      }
      *p = inp_buff[--n];
    }
    inp_ptr = inp_buff;
    if (q.getlen() != 0) alarme(&std_evt, 1);
  }
};

// EVLOG: logs each segment a sender hands to its AAL5 adapter (after its processing time):
// "SEG t=<slot> c=<conn> seq=<first byte> len=<IP length>"; its k-th line is frame k at the mux.
struct SegTap : public root {
  root *to;
  int idx;
  rec_typ REC(data *pd, int k) {
    tcpipFrame *f = (tcpipFrame *) pd;
    fprintf(stderr, "SEG t=%d c=%d seq=%d len=%d\n", SimTime, idx, f->TCPseq, f->frameLen);
    return to->rec(pd, k);
  }
};

struct Demux : public root {
  std::vector<root *> outs;
  unsigned long long cells = 0;
  std::vector<Line *> lines;
  rec_typ REC(data *pd, int) {
    ++cells;
    int v = ((cell *) pd)->vci;
    if (g_delay > 0) {
      lines[v]->q.push_back(std::make_pair((tim_typ) (SimTime + g_delay), pd));
      return ContSend;
    }
    return outs[v]->rec(pd, 0);
  }
};

struct AckTap : public root {
  root *to; int wnd; unsigned long long acks = 0, other_wnd = 0;
  Line *line = NULL;
  rec_typ REC(data *pd, int k) {
    ++acks;
    if (((tcpAck *) pd)->TCPAwnd != wnd) ++other_wnd;
    if (g_delay > 0) {
      line->inp = k;
      line->q.push_back(std::make_pair((tim_typ) (SimTime + g_delay), pd));
      return ContSend;
    }
    return to->rec(pd, k);
  }
};

struct Sink : public root {
  rec_typ REC(data *pd, int) {
    delete pd;
    return ContSend;
  }
};




int main(int argc, char **argv) {
  double rtomin = argc > 1 ? atof(argv[1]) : 0.45;
  int seed = argc > 2 ? atoi(argv[2]) : 1;
  int B = argc > 3 ? atoi(argv[3]) : 1000;
  int T = argc > 4 ? atoi(argv[4]) : 600;
  int WND = argc > 5 ? atoi(argv[5]) : 64000;
  long slots = argc > 6 ? atol(argv[6]) : 1000000;
  int fretr = argc > 7 ? atoi(argv[7]) : 0;
  int aalbuf = argc > 8 ? atoi(argv[8]) : 100;
  const char *trace = argc > 9 ? argv[9] : NULL;
  int BUF = 64000;
  // TCPSLOT: the slot length (s) the TCP objects convert their times with (default 20 us).
  // Old YATS converted with 53*8/BITRATE (default 149.76 Mbit/s, 2.83 us); cells, the
  // source's DELTA and the multiplexer stay one per slot whatever this is.
  g_delay = getenv("DELAY") ? atol(getenv("DELAY")) : 0;
  SlotLength = getenv("TCPSLOT") ? atof(getenv("TCPSLOT")) : 20e-6;
  my_srand(seed);
  data_classes();
  fill_type_check_table();

  const int N = 2;
  Obs *m = new Obs;
  m->name = (char *) "mux";
  m->ninp = N;
  m->max_vci = N;
  m->q.setmax(B);
  m->epdThresh = T;
  m->vciFirst = new int[N];
  m->vciOK = new int[N];
  for (int i = 0; i < N; ++i) m->vciFirst[i] = m->vciOK[i] = TRUE;
  if (trace) m->traceN = 500000;
  m->evlog = getenv("EVLOG") != NULL;
  Demux *dm = new Demux;
  dm->name = (char *) "demux";
  m->suc = dm;
  m->shand = 0;
  m->act();
  Sink *sk = new Sink;
  sk->name = (char *) "sink";

  std::vector<tcpipsend *> S;
  std::vector<tcpiprec *> R;
  std::vector<aal5rec *> AR;
  std::vector<AckTap *> taps;
  for (int i = 0; i < N; ++i) {
    char *nm;
    cbrframe *c = new cbrframe;
    asprintf(&nm, "src%d", i);
    c->name = nm;
    c->delta = 100;
    c->pkt_len = 9180;
    // Lua cbrframe: start_time defaults to delta
    c->StartTime = 100;
    // START0=1: CBRFrame's StartTime = 0, a start drawn uniformly in [0, 500000) slots
    if (getenv("START0")) c->StartTime = ((long) my_rand() * 32768 + my_rand()) % 500000;
    c->EndTime = (tim_typ) (0 - 100);
    c->bytes = (size_t) (0 - 9180);
    c->connID = i;
    tcpipsend *s = new tcpipsend;
    asprintf(&nm, "tcps%d", i);
    s->name = nm;
    s->max_input = BUF;
    s->q_start = BUF - 4096;
    s->MTU = 9180;
    s->do_timestamp = 1;
    s->nagleOff = 1;
    s->ph_efOn = 0;
    s->doFastRetr = fretr;
    s->bitrate = 53 * 8 / SlotLength;
    s->tick = 0.001;
    s->rto_lb = rtomin;
    s->procqThresh = 2;
    // 0.3 ms: 15 slots at 20 us (secs_to_slots would truncate 14.999... to 14)
    s->proc_time = getenv("PROCSLOTS") ? atoi(getenv("PROCSLOTS")) : (tim_typ) (0.3e-3 / SlotLength + 0.5);
    s->calcSendStopped = 0;
    s->doLogRetr = getenv("LOGRETR") ? 1 : 0;
    s->set_nout(2);
    aal5send *a = new aal5send;
    asprintf(&nm, "aal%d", i);
    a->name = nm;
    a->vci = i;
    a->fixVCI = TRUE;
    a->maxcid = 1;
    a->translationTabVCI = NULL;
    a->translationTabCID = NULL;
    a->sduSeqTab = new int[1];
    a->sduSeqTab[0] = 0;
    a->cellSeqTab = new int[1];
    a->cellSeqTab[0] = 0;
    a->curSduSeq = a->sduSeqTab;
    a->curCellSeq = a->cellSeqTab;
    a->q.setmax(aalbuf);
    a->q_start = aalbuf > 1 ? aalbuf / 2 : 0;
    a->addHeader = 0;
    a->printwarning = 1;
    a->CopyClp = 0;
    a->Pt1Clp0 = 0;
    a->del_cnt = 0;
    a->prec_state = ContSend;
    a->send_state = ContSend;
    a->sdu_cnt = 0;
    a->flen = 0;
    a->new_cid = -1;
    a->NewClp = 0;
    a->set_nout(2);
    aal5rec *ar = new aal5rec;
    asprintf(&nm, "aalr%d", i);
    ar->name = nm;
    ar->last_cell = 0;
    ar->last_sdu = 0;
    ar->sdu_loss = 0;
    ar->cell_loss = 0;
    ar->sdu_cnt = 0;
    ar->delay_mean = 0;
    tcpiprec *r = new tcpiprec;
    asprintf(&nm, "tcpr%d", i);
    r->name = nm;
    r->max_win = WND;
    r->wnd = WND;
    // RPROC, ACKDEL (env, seconds): the receiver's processing time and delayed-ACK timer
    r->proctim_secs = getenv("RPROC") ? atof(getenv("RPROC")) : 0.3e-3;
    r->ackdel_secs = getenv("ACKDEL") ? atof(getenv("ACKDEL")) : 0.2;
    r->ph_efOn = 0;
    r->iackdel_secs = r->proctim_secs;
    r->keepalive_secs = 0;
    r->set_nout(2);
    // wiring
    c->suc = s;
    c->shand = tcpipsend::InpData;
    if (getenv("EVLOG")) {
      SegTap *st = new SegTap; st->name = (char *) "segtap"; st->to = a; st->idx = i;
      s->add_output(1, st, 0);  // SucData -> (log) -> aal data
    } else s->add_output(1, a, 0);   // SucData -> aal data
    s->add_output(2, c, 0);   // SucCtrl -> src ctrl
    a->add_output(1, m, i);   // cells -> mux input i
    a->add_output(2, s, tcpipsend::InpStart);
    dm->outs.push_back(ar);
    { Line *l = new Line; l->to = ar; l->inp = 0; dm->lines.push_back(l); g_lines.push_back(l); }
    ar->suc = r;
    ar->shand = 0;
    r->add_output(1, sk, 0);
    AckTap *tap = new AckTap; tap->name = (char *) "tap"; tap->to = s; tap->wnd = WND; taps.push_back(tap);
    { Line *l = new Line; l->to = s; tap->line = l; g_lines.push_back(l); }
    r->add_output(2, tap, tcpipsend::InpAck);
    c->act();
    s->act();
    r->act();
    s->ptrTcpRecv = r;
    s->connectact(r);
    S.push_back(s);
    R.push_back(r);
    AR.push_back(ar);
  }
  // run, sampling sender-1 bytes every 500 slots
  FILE *tf = trace ? fopen(trace, "w") : NULL;
  long done = 0;
  while (done < slots) {
    long step = 500;
    _sim.run(step, step * 2);
    done += step;
    if (getenv("DBG") && done <= 5000) fprintf(stderr, "t=%ld rcvd %d iq %d nxt %d una %d send_state %d procq %d cnt %u aalq %d\n", done, S[0]->received_bytes, S[0]->input_q_len, S[0]->nxt, S[0]->una, S[0]->send_state, S[0]->procq.getlen(), m->arrivals, 0);
    if (tf && done <= 500000) {
      unsigned qmax = 0;
      double qs = 0;
      for (long k = done - step; k < done && k < (long) m->qtrace.size(); ++k) {
        if (m->qtrace[k] > qmax) qmax = m->qtrace[k];
        qs += m->qtrace[k];
      }
      fprintf(tf, "%ld %u %.1f %u %u\n", done - step, qmax, qs / step, S[0]->xmitted_bytes, S[1]->xmitted_bytes);
    }
  }
  if (tf) fclose(tf);
  if (m->idle_run >= m->gapmin) m->gaps.push_back(m->idle_run);
  std::vector<unsigned> g = m->gaps;
  std::sort(g.begin(), g.end());
  unsigned med = g.empty() ? 0 : g[g.size() / 2];
  printf("rtomin %.3f seed %d B %d T %d WND %d: load %.6f loss %u arrivals %llu gaps %zu median_gap %u\n",
         rtomin, seed, B, T, WND, (double) dm->cells / slots, m->lossTot, m->arrivals, g.size(), med);
  for (size_t k = 0; k < taps.size(); ++k) printf("ACKTAP %zu acks %llu with_other_window %llu\n", k, taps[k]->acks, taps[k]->other_wnd);
  if (getenv("GAPS")) { printf("GAPS"); for (size_t k = 0; k < m->gaps.size(); ++k) printf(" %u", m->gaps[k]); printf("\n"); }
  for (int i = 0; i < N; ++i) {
    printf("  conn %d: xmitted %u user %u rexmit_segs %d really_rexmit %u rto %d rx_user %u thr %.1f bit/s acks %d ooo %d sdu_loss %d\n", i,
           S[i]->xmitted_bytes, S[i]->xmitted_user_bytes, S[i]->rexmitted_segments, (unsigned) S[i]->segsReallyRetransmitted, S[i]->rexmto,
           R[i]->user_bytes, R[i]->throughput, R[i]->ack_cnt, R[i]->out_of_order_segments, AR[i]->sdu_loss);
  }
  return 0;
}
