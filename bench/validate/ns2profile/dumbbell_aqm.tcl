# Issue 14 validation: a 4-flow dumbbell, DropTail or RED/ECN bottleneck, ns-2.35 stock TCP
# mechanisms (Agent/TCP/Sack1 with its defaults: singledup_ 1, bugFix_, tcpTick_ 0.01,
# minrto_ 0.2, rtxcur_init_ 3, windowInit_ 2, syn_ true). Pairs with dumbbell_aqm.toml.
#
#   ns dumbbell_aqm.tcl droptail|red SEED TRACEFILE [OVERHEAD [SHIFT]]
#
# OVERHEAD (seconds, default 0) is every agent's `overhead_`: a uniform [0, OVERHEAD) delay
# before each send burst (TcpAgent::send_much's delayed-send timer; ns-2.35's default is 0).
# SHIFT (seconds, default none) is added to flow 2's 10 ms access delay: 1e-7 makes its packets
# reach the bottleneck 100 ns after flow 0's where the two would tie (their round trips differ
# by 18 ms, 15 packet times), so every tie goes the same way in both simulators.
#
# Prints one JSON line: per-flow goodput (TCPSink bytes_), retransmitted packets
# (nrexmitpack_), timeouts (nrexmit_), and the bottleneck's arrivals, drops and time-average
# queue (QueueMonitor integrator). TRACEFILE gets the bottleneck queue's trace (marks and
# drops are counted from it by run_dumbbell.py, then it is deleted).
if {$argc < 3 || $argc > 5} { puts stderr "usage: ns dumbbell_aqm.tcl droptail|red SEED TRACEFILE \[OVERHEAD \[SHIFT\]\]"; exit 2 }
set QT [lindex $argv 0]
set SEED [lindex $argv 1]
set TF [lindex $argv 2]
set OVERHEAD [expr {$argc >= 4 ? [lindex $argv 3] : 0}]
set N 4
set END 60.0
set DELAYS {1ms 5ms 10ms 20ms}
if {$argc == 5} { lset DELAYS 2 [expr {0.010 + [lindex $argv 4]}] }

global defaultRNG
$defaultRNG seed $SEED
# Start times from substream SEED of their own stream (as ../sctp/sctp_path.tcl's loss
# streams). Not `$startrng seed $SEED`: ns-2.35's RNG seeded with a small integer gives a
# first draw near 0 (seed 1: 0.0003, seed 4: 0.0013, seed 8: 0.0027), so flow 0 started at
# t ~ 0 in every run and had the bottleneck to itself for its whole slow start.
set startrng [new RNG]
for {set i 1} {$i < $SEED} {incr i} { $startrng next-substream }

Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 64
Agent/TCP set overhead_ $OVERHEAD
if {$QT == "red"} { Agent/TCP set ecn_ 1 }

Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 15
Queue/RED set q_weight_ 0.002
Queue/RED set linterm_ 10
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set mean_pktsize_ 1500
Queue/RED set gentle_ true
Queue/RED set wait_ true
Queue/RED set setbit_ true

set ns [new Simulator]
set r0 [$ns node]
set r1 [$ns node]
if {$QT == "red"} { set qk RED } else { set qk DropTail }
$ns duplex-link $r0 $r1 10Mb 10ms $qk
$ns queue-limit $r0 $r1 50
set tf [open $TF w]
$ns trace-queue $r0 $r1 $tf
set qmon [$ns monitor-queue $r0 $r1 [$ns get-ns-traceall] 0.1]

for {set i 0} {$i < $N} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r0 100Mb [lindex $DELAYS $i] DropTail
    $ns queue-limit $s($i) $r0 1000
    $ns duplex-link $r1 $d($i) 100Mb 1ms DropTail
    $ns queue-limit $r1 $d($i) 1000
    set tcp($i) [new Agent/TCP/Sack1]
    set sink($i) [new Agent/TCPSink/Sack1]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    # Start i * 100 ms plus U(0, 1 s) from the seeded RNG: without it the DropTail case is a
    # deterministic phase pattern (every seed the same run).
    $ns at [expr {$i * 0.1 + [$startrng uniform 0 1]}] "$ftp($i) start"
}

proc finish {} {
    global N sink tcp qmon END tf
    flush $tf
    close $tf
    set g {}
    set rx {}
    set to {}
    for {set i 0} {$i < $N} {incr i} {
        lappend g [expr {[$sink($i) set bytes_] * 8.0 / $END}]
        lappend rx [$tcp($i) set nrexmitpack_]
        lappend to [$tcp($i) set nrexmit_]
    }
    set int [$qmon get-pkts-integrator]
    set meanq [expr {[$int set sum_] / $END}]
    puts [format {{"goodput_bps":[%s],"rexmit_pkts":[%s],"timeouts":[%s],"arrivals":%d,"drops":%d,"mean_queue_pkts":%.6f}} \
        [join $g ,] [join $rx ,] [join $to ,] [$qmon set parrivals_] [$qmon set pdrops_] $meanq]
    exit 0
}
$ns at $END "finish"
$ns run
