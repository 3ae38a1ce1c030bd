# Study 2, Fig 8 (S4) in ns-2.35: data packets lost in one blind radio outage, fixed 16 KB
# window against an emulation of the proposal.
#
#   ns outage.tcl <fixed|proposal> <outage start t0 s> <outage length D s> [alpha]
#
# Prints one JSON line: the window mode, t0, D, the packets lost (data packets dropped on the
# radio link from t0 to t0 + D + 30 s), the mobile's queue at the BS at t0 (packets) and the
# server's outstanding data at t0 (packets sent and not acknowledged), and the advertised
# window at t0 (packets).
#
# Topology and TCP as wireless.tcl (spec 2 §3) at W = 1 Mb/s: server --10 Mb/s, 25 ms,
# DropTail 50-- bs --1 Mb/s, 2 ms, DropTail 100-- ms; Agent/TCP/Reno, 1000 B segments,
# windowInit_ 1, tcpTick_ 0.1, minrto_ 0.2, rtxcur_init_ 3, maxrto_ 64; Agent/TCPSink.
#
# Blind outage (spec 2 §2.5, the default): an ErrorModel that drops every packet, inserted
# AFTER the radio link's delay element in both directions (`link-lossmodel`), switched on for
# [t0, t0 + D). The BS keeps dequeuing and transmitting at 1 Mb/s; every packet whose arrival
# falls in the interval is lost, as are the ACKs.
#
# Proposal emulation (ns-2.35 has no receive window driven by a BS report). Every radio packet
# time (8.32 ms) a Tcl procedure reads the BS downlink queue's byte count Q (QueueMonitor
# size_: the queue without the packet in transmission), applies spec 2 §2.3's filter
# rwnd = a·clamp(16384 − Q, 1000, 16384) + (1 − a)·rwnd (a = 0.5, initially 16384, whole
# bytes), and sets the server's window_ to rwnd / 1000 packets (ns-2's window() truncates to
# whole packets: a sender that only sends full 1000 B segments) after the feedback delay of
# the report's path (radio transmission 8.32 ms + 2 ms + ACK 0.32 ms + 2 ms + 0.032 ms + 25 ms
# = 37.67 ms). Limits: one sample per radio packet time instead of one per dequeued packet
# (the phase of the sample against the dequeue differs), no samples while the radio is down
# (the mobile hears nothing then), and no Triplicate Reconnection ACKs in either arm (ns-2's
# TCPSink cannot be told to send them). The losses counted here happen while the radio is
# down, before any TR-ACK could be sent, so the missing TR-ACKs change recovery, not them.

set mode  [lindex $argv 0]
set t0    [lindex $argv 1]
set D     [lindex $argv 2]
set alpha [expr {[llength $argv] > 3 ? [lindex $argv 3] : 0.5}]
set wmax 16384.0
set duration [expr {$t0 + $D + 40.0}]

set ns [new Simulator]
Agent/TCP set window_ 16
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
$ns duplex-link $b $m 1000kb 2ms DropTail
$ns queue-limit $s $b 50
$ns queue-limit $b $s 50
$ns queue-limit $b $m 100
$ns queue-limit $m $b 100

set tf [open "| cat > /dev/null" w]
set qm [$ns monitor-queue $b $m $tf]

set tmp "outage.[pid].tmp"
set trace [open $tmp w]
$ns trace-queue $b $m $trace

proc blackout {} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ 1.0
    $em ranvar [new RandomVariable/Uniform]
    $em set enable_ 0
    return $em
}
set down [blackout]
set up [blackout]
$ns link-lossmodel $down $b $m
$ns link-lossmodel $up $m $b
$ns at $t0 "$down set enable_ 1; $up set enable_ 1"
$ns at [expr {$t0 + $D}] "$down set enable_ 0; $up set enable_ 0"

set tcp [new Agent/TCP/Reno]
set sink [new Agent/TCPSink]
$ns attach-agent $s $tcp
$ns attach-agent $m $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.5 "$ftp start"

set rwnd $wmax
set tick [expr {1040.0 * 8 / 1e6}]
set feedback [expr {$tick + 0.002 + 40.0 * 8 / 1e6 + 0.002 + 40.0 * 8 / 1e7 + 0.025}]
proc sample {} {
    global ns qm tcp rwnd wmax alpha tick feedback t0 D
    set now [$ns now]
    if {$now < $t0 || $now >= $t0 + $D} {
        set q [$qm set size_]
        set target [expr {$wmax - $q}]
        if {$target < 1000.0} { set target 1000.0 }
        if {$target > $wmax} { set target $wmax }
        set rwnd [expr {floor($alpha * $target + (1.0 - $alpha) * $rwnd)}]
        $ns at [expr {$now + $feedback}] "$tcp set window_ [expr {$rwnd / 1000.0}]"
    }
    $ns at [expr {$now + $tick}] "sample"
}
if {$mode eq "proposal"} {
    $ns at 0.0 "sample"
}

set at0 {}
proc mark {} {
    global qm tcp at0
    set out [expr {[$tcp set t_seqno_] - [$tcp set ack_] - 1}]
    set at0 [list [$qm set pkts_] $out [$tcp set window_]]
}
$ns at $t0 "mark"

proc finish {} {
    global ns trace tmp mode t0 D at0
    $ns flush-trace
    close $trace
    set f [open $tmp r]
    set lost 0
    set end [expr {$t0 + $D + 30.0}]
    while {[gets $f line] >= 0} {
        set x [split $line " "]
        if {[lindex $x 0] eq "d" && [lindex $x 4] eq "tcp"} {
            set t [lindex $x 1]
            if {$t >= $t0 && $t <= $end} { incr lost }
        }
    }
    close $f
    file delete $tmp
    puts [format "{\"mode\": \"%s\", \"t0\": %.3f, \"D\": %s, \"lost\": %d, \"queued_t0\": %d, \"outstanding_t0\": %d, \"window_t0\": %.3f}" \
              $mode $t0 $D $lost [lindex $at0 0] [lindex $at0 1] [lindex $at0 2]]
    exit 0
}
$ns at $duration "finish"
$ns run
