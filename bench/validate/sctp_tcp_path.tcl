# ns-2.35 peer of scenarios/sctp-tcp-path.toml (path0 only): a 4 MiB TCP file transfer
# S -> D over  S --10Mb/s,10ms-- R0a ==2Mb/s,15ms== R0b --10Mb/s,10ms-- D
# with uniform per-packet loss on R0a -> R0b only, DropTail 50 packets on every queue.
#
#   ns sctp_tcp_path.tcl <reno|sack> <loss> <seed>
#
# Prints one JSON line on stdout. completion_time_s is when the sink has 2,873 data segments
# in order (4 MiB / 1460 rounded up), measured from the start of the connection (the SYN is
# modelled, as in packetsim, whose time includes its handshake). The sink is polled every
# POLL seconds, so the time is late by at most POLL (0.5 ms) -- see README.md.

if {$argc != 3} {
    puts stderr "usage: ns sctp_tcp_path.tcl <reno|sack> <loss> <seed>"
    exit 2
}
set variant [lindex $argv 0]
set loss    [lindex $argv 1]
set seed    [lindex $argv 2]
if {$variant ne "reno" && $variant ne "sack"} {
    puts stderr "variant must be reno or sack, got '$variant'"
    exit 2
}
if {![string is double -strict $loss] || $loss < 0 || $loss >= 1} {
    puts stderr "loss must be a number in \[0, 1), got '$loss'"
    exit 2
}
if {![string is integer -strict $seed] || $seed < 1} {
    puts stderr "seed must be a positive integer, got '$seed'"
    exit 2
}

set MSS 1460
set HDR 40
set PKT [expr {$MSS + $HDR}]
set FILE_BYTES 4194304
set SEGS [expr {($FILE_BYTES + $MSS - 1) / $MSS}]   ;# 2873
set CAP 3600.0                                      ;# same cap as the scenario's duration
set POLL 0.0005

# ---- TCP parameters (explicit, whatever the defaults are) ----
Agent/TCP set packetSize_ $MSS          ;# payload; + 40 B header = 1500-byte packets
Agent/TCP set tcpip_base_hdr_size_ $HDR
Agent/TCP set window_ 20                ;# advertised window, packets (29,200 B)
Agent/TCP set maxcwnd_ 0
Agent/TCP set windowInit_ 1             ;# initial cwnd 1 segment
Agent/TCP set windowInitOption_ 1
Agent/TCP set syn_ true                 ;# model the SYN (packetsim has a 3-way handshake)
Agent/TCP set delay_growth_ true        ;# first data after the SYN is acked
Agent/TCP set tcpTick_ 0.01             ;# clock granularity 10 ms
Agent/TCP set minrto_ 0                 ;# no RTO floor beyond the tick
Agent/TCP set rtxcur_init_ 3.0          ;# initial RTO 3 s
Agent/TCP set maxrto_ 64                ;# max RTO 64 s
Agent/TCP set timestamps_ false
Agent/TCP set numdupacks_ 3
Agent/TCP set singledup_ 0              ;# no limited transmit (packetsim has none)
Agent/TCP set maxburst_ 0
Agent/TCP set overhead_ 0
Agent/TCP set ecn_ 0
Agent/TCP set windowOption_ 1
Agent/TCPSink set ts_echo_rfc1323_ false
Agent/TCPSink set maxSackBlocks_ 3
Agent/TCPSink/Sack1 set maxSackBlocks_ 3

# ---- topology ----
set ns [new Simulator]
set S   [$ns node]
set R0a [$ns node]
set R0b [$ns node]
set D   [$ns node]
$ns duplex-link $S   $R0a 10Mb 10ms DropTail
$ns duplex-link $R0a $R0b 2Mb  15ms DropTail
$ns duplex-link $R0b $D   10Mb 10ms DropTail
foreach {a b} [list $S $R0a $R0a $R0b $R0b $D] {
    $ns queue-limit $a $b 50
    $ns queue-limit $b $a 50
}

# ---- uniform per-packet loss, R0a -> R0b only ----
# Run <seed> uses substream <seed> of a fresh RNG stream (MRG32k3a). Seeding with "$rng seed N"
# for small N was tried first and is wrong here: its first draw was tiny for every seed tried,
# so the SYN (the first packet) was lost in every lossy run.
set rng [new RNG]
for {set i 1} {$i < $seed} {incr i} { $rng next-substream }
set uni [new RandomVariable/Uniform]
$uni set min_ 0.0
$uni set max_ 1.0
$uni use-rng $rng
set em [new ErrorModel]
$em unit pkt
$em set rate_ $loss
$em ranvar $uni
$em drop-target [new Agent/Null]
$ns lossmodel $em $R0a $R0b

# ---- the flow ----
if {$variant eq "reno"} {
    set tcp  [new Agent/TCP/Reno]
    set sink [new Agent/TCPSink]
} else {
    set tcp  [new Agent/TCP/Sack1]
    set sink [new Agent/TCPSink/Sack1]
}
$ns attach-agent $S $tcp
$ns attach-agent $D $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp send $FILE_BYTES"

# bytes_ counts in-order packets handed up at their full size (1500 B) plus 40 B for the SYN.
proc poll {} {
    global ns sink PKT SEGS POLL CAP tcp variant loss seed
    set now [$ns now]
    set got [expr {[$sink set bytes_] / $PKT}]
    if {$got >= $SEGS || $now >= $CAP} {
        set done [expr {$got >= $SEGS ? "true" : "false"}]
        if {$got >= $SEGS} { set t [format %.6f $now] } else { set t null }
        puts [format {{"sim":"ns-2.35","variant":"%s","loss":%s,"seed":%d,"completed":%s,"completion_time_s":%s,"inorder_segments":%d,"retransmits":%d,"timeouts":%d}} \
            $variant $loss $seed $done $t $got [$tcp set nrexmitpack_] [$tcp set nrexmit_]]
        flush stdout
        exit 0
    }
    $ns at [expr {$now + $POLL}] "poll"
}
$ns at 0.0 "poll"
$ns run
