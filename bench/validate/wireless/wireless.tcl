# Study 2 (spec/2-wireless-bs-buffer.md), fixed-window baselines in ns-2.35.
#
#   ns wireless.tcl <radio rate kb/s> <window packets> [duration s]
#
# Prints one JSON line over the measurement window [10 s, end): the mobile's downlink queue
# occupancy (time average from ns-2's QueueMonitor bytes integrator, KB), in-order throughput
# at the sink (payload kb/s), and the mean and 95th-percentile one-way delay of data packets
# from the start of their transmission at the server to their arrival at the mobile (ms).
#
# Topology (spec 2 §3): server --10 Mb/s, 25 ms, DropTail 50-- bs --W, 2 ms, DropTail 100-- ms.
# TCP: Agent/TCP/Reno (ns-2.35 defaults otherwise), packetSize_ 1000 (1040 B on the wire),
# windowInit_ 1, window_ = the fixed receive window in packets, tcpTick_ 0.1, minrto_ 0.2,
# rtxcur_init_ 3, maxrto_ 64; Agent/TCPSink (an ACK per segment, 40 B). FTP from 0.5 s.

set rate     [lindex $argv 0]
set win      [lindex $argv 1]
set duration [expr {[llength $argv] > 2 ? [lindex $argv 2] : 100.0}]
set warm 10.0

set ns [new Simulator]
Agent/TCP set window_ $win
Agent/TCP set windowInit_ 1
Agent/TCP set packetSize_ 1000
Agent/TCP set tcpTick_ 0.1
Agent/TCP set minrto_ 0.2
Agent/TCP set rtxcur_init_ 3.0
Agent/TCP set maxrto_ 64

set s [$ns node]
set b [$ns node]
set m [$ns node]
$ns duplex-link $s $b 10Mb 25ms DropTail
$ns duplex-link $b $m ${rate}kb 2ms DropTail
$ns queue-limit $s $b 50
$ns queue-limit $b $s 50
$ns queue-limit $b $m 100
$ns queue-limit $m $b 100

set tf [open "| cat > /dev/null" w]
set qm [$ns monitor-queue $b $m $tf]
set bint [$qm get-bytes-integrator]

# Per-packet times: start of transmission at the server ("-" on s->b), arrival at the mobile.
set tmp "trace.[pid].tmp"
set trace [open $tmp w]
$ns trace-queue $s $b $trace
$ns trace-queue $b $m $trace

set tcp [new Agent/TCP/Reno]
set sink [new Agent/TCPSink]
$ns attach-agent $s $tcp
$ns attach-agent $m $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.5 "$ftp start"

set i0 0
set a0 0
proc mark {} {
    global bint i0 a0 tcp
    set i0 [$bint set sum_]
    set a0 [$tcp set ack_]
}
$ns at $warm "mark"
proc finish {} {
    global ns bint i0 a0 tcp warm duration trace rate win tmp
    $ns flush-trace
    close $trace
    set i1 [$bint set sum_]
    set a1 [$tcp set ack_]
    set span [expr {$duration - $warm}]
    set occ [expr {($i1 - $i0) / $span / 1024.0}]
    set thr [expr {($a1 - $a0) * 1000 * 8 / $span / 1000.0}]
    # Delays from the trace.
    set f [open $tmp r]
    array set start {}
    set ds {}
    while {[gets $f line] >= 0} {
        set x [split $line " "]
        set ev [lindex $x 0]
        set t [lindex $x 1]
        set from [lindex $x 2]
        set to [lindex $x 3]
        set type [lindex $x 4]
        set uid [lindex $x 11]
        if {$type ne "tcp"} continue
        if {$ev eq "-" && $from == 0 && $to == 1} { set start($uid) $t }
        if {$ev eq "r" && $from == 1 && $to == 2 && $t >= $warm && [info exists start($uid)]} {
            lappend ds [expr {($t - $start($uid)) * 1000.0}]
        }
    }
    close $f
    file delete $tmp
    set ds [lsort -real $ds]
    set n [llength $ds]
    set sum 0.0
    foreach d $ds { set sum [expr {$sum + $d}] }
    set mean [expr {$n > 0 ? $sum / $n : 0}]
    set p95 [lindex $ds [expr {int(ceil($n * 0.95)) - 1}]]
    puts [format "{\"rate_kbps\": %s, \"window\": %s, \"occ_kb\": %.3f, \"thr_kbps\": %.2f, \"delay_ms\": %.2f, \"delay_p95_ms\": %.2f}" $rate $win $occ $thr $mean $p95]
    exit 0
}
$ns at $duration "finish"
$ns run
