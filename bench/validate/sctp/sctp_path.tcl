# ns-2.35 peer of spec 3 (SCTP multihoming, Figs 2-4): one 4 MiB transfer S -> D over
#
#   path0:  S0 --10Mb/s,10ms-- R0a ==2Mb/s,15ms== R0b --10Mb/s,10ms-- D0
#   path1:  S1 --10Mb/s,10ms-- R1a ==2Mb/s,15ms== R1b --10Mb/s,10ms-- D1
#
# DropTail 50 packets on every queue, uniform per-packet loss on R0a -> R0b (path0 loss) and
# R1a -> R1b (path1 loss), data direction only.
#
#   ns sctp_path.tcl <reno|sack|sctp1|sctp2> <loss0> <loss1> <rtxToAlt 0|1> <seed> [rwnd_bytes [fastRtxTrigger [delayedSack]]]
#
# rwnd_bytes defaults to 65536, fastRtxTrigger to 4 (spec: 4th missing report; ns-2.35's own
# default is 3), delayedSack to 1 (SCTP useDelayedSacks_).
#
# reno/sack/sctp1 use path0 only (single-homed); sctp2 is dual-homed with D0 primary.
# Prints one JSON line on stdout.
#
# What is measured (all from callbacks on link traces, so exact, no polling):
#   t_done   = the time the last missing data packet/chunk arrives at D (D0 or D1) such that D
#              holds every chunk/segment of the file, i.e. in-order delivery of the last byte.
#   SCTP: time_s = t_done - t_first_data, t_first_data = first DATA chunk leaving S (the
#         association handshake, and the heartbeat ns-2 exchanges before its first DATA, are
#         excluded). time_from_est_s = t_done - (time the COOKIE-ACK reached S) is also printed.
#   TCP:  time_s = t_done - 0 (the SYN is modelled and included, as in bench/validate/).

if {$argc < 5 || $argc > 8} {
    puts stderr "usage: ns sctp_path.tcl <reno|sack|sctp1|sctp2> <loss0> <loss1> <rtxToAlt 0|1> <seed> \[rwnd_bytes \[fastRtxTrigger \[delayedSack 0|1\]\]\]"
    exit 2
}
set proto    [lindex $argv 0]
set loss0    [lindex $argv 1]
set loss1    [lindex $argv 2]
set rtxToAlt [lindex $argv 3]
set seed     [lindex $argv 4]
set rwnd     [expr {$argc >= 6 ? [lindex $argv 5] : 65536}]
set frtx     [expr {$argc >= 7 ? [lindex $argv 6] : 4}]
set dsack    [expr {$argc >= 8 ? [lindex $argv 7] : 1}]
if {[lsearch -exact {reno sack sctp1 sctp2} $proto] < 0} { puts stderr "bad protocol $proto"; exit 2 }
foreach l [list $loss0 $loss1] {
    if {![string is double -strict $l] || $l < 0 || $l >= 1} { puts stderr "bad loss $l"; exit 2 }
}
if {![string is integer -strict $seed] || $seed < 1} { puts stderr "bad seed $seed"; exit 2 }

set FILE_BYTES 4194304
set CAP 3600.0
set MULTI [expr {$proto eq "sctp2"}]
set IS_SCTP [expr {$proto eq "sctp1" || $proto eq "sctp2"}]

# ---- TCP parameters (as bench/validate/sctp_tcp_path.tcl) ----
Agent/TCP set packetSize_ 1460
Agent/TCP set tcpip_base_hdr_size_ 40
Agent/TCP set window_ 20
Agent/TCP set maxcwnd_ 0
Agent/TCP set windowInit_ 1
Agent/TCP set windowInitOption_ 1
Agent/TCP set syn_ true
Agent/TCP set delay_growth_ true
Agent/TCP set tcpTick_ 0.01
Agent/TCP set minrto_ 0
Agent/TCP set rtxcur_init_ 3.0
Agent/TCP set maxrto_ 64
Agent/TCP set timestamps_ false
Agent/TCP set numdupacks_ 3
Agent/TCP set singledup_ 0
Agent/TCP set maxburst_ 0
Agent/TCP set overhead_ 0
Agent/TCP set ecn_ 0
Agent/TCP set windowOption_ 1
Agent/TCPSink set ts_echo_rfc1323_ false
Agent/TCPSink set maxSackBlocks_ 3
Agent/TCPSink/Sack1 set maxSackBlocks_ 3
# NS2_STOCK=1 in the environment (bench/validate/ns2profile/): TCP's loss-recovery and timer
# mechanisms back at ns-2.35's stock values (limited transmit on, minrto_ 0.2 s, maxrto_ 60 s);
# the scenario's sizes above (packet size, window_, windowInit_, SYN) are kept.
if {[info exists env(NS2_STOCK)] && $env(NS2_STOCK) eq "1"} {
    Agent/TCP set singledup_ 1
    Agent/TCP set minrto_ 0.2
    Agent/TCP set maxrto_ 60
}

# ---- SCTP parameters (explicit; the values are also ns-2.35's defaults except rtxToAlt_) ----
Agent/SCTP set mtu_ 1500
Agent/SCTP set dataChunkSize_ 1468           ;# 16 B chunk header + 1452 B user data
Agent/SCTP set numOutStreams_ 1
Agent/SCTP set initialRwnd_ $rwnd
Agent/SCTP set initialSsthresh_ 65536
Agent/SCTP set initialCwnd_ 2                ;# x MTU
Agent/SCTP set useDelayedSacks_ $dsack
Agent/SCTP set sackDelay_ 0.200
Agent/SCTP set useMaxBurst_ 1
Agent/SCTP set heartbeatInterval_ 30
Agent/SCTP set initialRto_ 3.0
Agent/SCTP set minRto_ 1.0
Agent/SCTP set maxRto_ 60.0
Agent/SCTP set pathMaxRetrans_ 5
Agent/SCTP set associationMaxRetrans_ 10
Agent/SCTP set fastRtxTrigger_ $frtx         ;# spec: 4th missing report (ns-2 default is 3)
Agent/SCTP set rtxToAlt_ $rtxToAlt
Agent/SCTP set changePrimaryThresh_ -1
Agent/SCTP set trace_all_ 0

# ---- link-trace callbacks: every traced event calls "handle" with its trace line ----
Trace set show_sctphdr_ 1
Trace set callback_ 1

set ns [new Simulator]
set nulltf [open /dev/null w]

foreach n {S0 R0a R0b D0} { set $n [$ns node] }
set links [list $S0 $R0a 10Mb 10ms  $R0a $R0b 2Mb 15ms  $R0b $D0 10Mb 10ms]
if {$MULTI} {
    foreach n {S S1 R1a R1b D D1} { set $n [$ns node] }
    $ns multihome-add-interface $S $S0
    $ns multihome-add-interface $S $S1
    $ns multihome-add-interface $D $D0
    $ns multihome-add-interface $D $D1
    lappend links $S1 $R1a 10Mb 10ms  $R1a $R1b 2Mb 15ms  $R1b $D1 10Mb 10ms
}
foreach {a b bw d} $links {
    $ns duplex-link $a $b $bw $d DropTail
    $ns queue-limit $a $b 50
    $ns queue-limit $b $a 50
}

# ---- uniform per-packet loss on the 2 Mb/s links, forward direction ----
# Each path has its own RNG stream; run <seed> uses substream <seed> of it (as bench/validate/).
proc add_loss {a b rate} {
    global ns seed
    set rng [new RNG]
    for {set i 1} {$i < $seed} {incr i} { $rng next-substream }
    set uni [new RandomVariable/Uniform]
    $uni set min_ 0.0
    $uni set max_ 1.0
    $uni use-rng $rng
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $rate
    $em ranvar $uni
    $em drop-target [new Agent/Null]
    $ns lossmodel $em $a $b
}
# NS2_DROPLIST=<file> (bench/validate/ns2profile/losslist.py) or LOSSLIST=<file>
# (bench/validate/ns2profile/replay.py) in the environment: path0's losses are instead the
# packets whose indices (from 0, whitespace-separated, as seen by the error model at R0a ->
# R0b) the file lists (ErrorModel/List); loss0 is then ignored, and packetsim's
# `loss_packets` replays the same list.
set droplist_file ""
foreach v {NS2_DROPLIST LOSSLIST} {
    if {[info exists env($v)]} { set droplist_file $env($v) }
}
if {$droplist_file ne ""} {
    set fh [open $droplist_file]
    set dl [string trim [read $fh]]
    close $fh
    set em [new ErrorModel/List]
    $em unit pkt
    $em droplist $dl
    $em drop-target [new Agent/Null]
    $ns lossmodel $em $R0a $R0b
} else {
    add_loss $R0a $R0b $loss0
}
# EVLOG=file (TCP only): every TCP packet S0 sends ("S time seqno") and every ACK it receives
# ("A time ackno"), and in file.vars the agent's traced variables as ns-2 prints them.
set evf ""
if {[info exists env(EVLOG)]} { set evf [open $env(EVLOG) w] }
if {$MULTI} { add_loss $R1a $R1b $loss1 }

# traced links: arrivals at the receiver, departures from the sender, returns to the sender
set D0id [$D0 id]
set S0id [$S0 id]
$ns trace-queue $R0b $D0 $nulltf
$ns trace-queue $S0 $R0a $nulltf
$ns trace-queue $R0a $S0 $nulltf
if {$MULTI} {
    set D1id [$D1 id]
    set S1id [$S1 id]
    $ns trace-queue $R1b $D1 $nulltf
    $ns trace-queue $S1 $R1a $nulltf
    $ns trace-queue $R1a $S1 $nulltf
} else {
    set D1id -1
    set S1id -1
}

# ---- the flow ----
if {$IS_SCTP} {
    set NUNITS [expr {($FILE_BYTES + 1451) / 1452}]   ;# 2889 chunks, TSN 1..2889
    set FIRST 1
    set src [new Agent/SCTP]
    set dst [new Agent/SCTP]
    if {$MULTI} {
        $ns multihome-attach-agent $S $src
        $ns multihome-attach-agent $D $dst
        $ns connect $src $dst
        $src set-primary-destination $D0
        $dst set-primary-destination $S0
    } else {
        $ns attach-agent $S0 $src
        $ns attach-agent $D0 $dst
        $ns connect $src $dst
    }
} else {
    set NUNITS [expr {($FILE_BYTES + 1459) / 1460}]   ;# 2873 segments, seqno 1..2873 (SYN is 0)
    set FIRST 1
    if {$proto eq "reno"} {
        set src [new Agent/TCP/Reno]
        set dst [new Agent/TCPSink]
    } else {
        set src [new Agent/TCP/Sack1]
        set dst [new Agent/TCPSink/Sack1]
    }
    $ns attach-agent $S0 $src
    $ns attach-agent $D0 $dst
    $ns connect $src $dst
}
if {!$IS_SCTP && $evf ne ""} {
    set vtf [open $env(EVLOG).vars w]
    $src attach $vtf
    foreach v {nrexmit_ cwnd_ ssthresh_ rtt_ srtt_ rttvar_ backoff_} { $src trace $v }
}
set ftp [new Application/FTP]
$ftp attach-agent $src
$ns at 0.0 "$ftp send $FILE_BYTES"

# ---- bookkeeping in the callback ----
set cum [expr {$FIRST - 1}]       ;# highest unit such that all units FIRST..cum arrived at D
array set got {}
set t_first_data -1
set t_est -1
set sent0 0
set sent1 0
set arr0 0
set arr1 0
set hb 0

proc finish {} {
    global ns proto loss0 loss1 rtxToAlt seed rwnd frtx dsack t_done t_first_data t_est sent0 sent1 arr0 arr1 \
        IS_SCTP NUNITS src cum hb
    if {$t_done >= 0} {
        set tstart [expr {$IS_SCTP ? $t_first_data : 0.0}]
        set time [format %.6f [expr {$t_done - $tstart}]]
        set test null
        if {$IS_SCTP && $t_est >= 0} { set test [format %.6f [expr {$t_done - $t_est}]] }
        set done true
    } else {
        set time null; set test null; set done false
    }
    if {$IS_SCTP} {
        set extra [format {"timeouts":%d,"fast_rtx":%d,"heartbeats":%d} \
            [$src set timeoutCount_] [$src set frCount_] $hb]
    } else {
        set extra [format {"timeouts":%d,"rexmit_pkts":%d} [$src set nrexmit_] [$src set nrexmitpack_]]
    }
    puts [format {{"sim":"ns-2.35","proto":"%s","loss0":%s,"loss1":%s,"rtx_to_alt":%d,"seed":%d,"rwnd":%d,"frtx_trigger":%d,"delayed_sack":%d,"completed":%s,"time_s":%s,"time_from_est_s":%s,"t_first_data":%s,"units":%d,"delivered":%d,"sent_path0":%d,"sent_path1":%d,"arrived_path0":%d,"arrived_path1":%d,%s}} \
        $proto $loss0 $loss1 $rtxToAlt $seed $rwnd $frtx $dsack $done $time $test $t_first_data $NUNITS \
        $cum $sent0 $sent1 $arr0 $arr1 $extra]
    flush stdout
    global evf
    if {$evf ne ""} { close $evf }
    exit 0
}

set t_done -1
Trace instproc handle {line} {
    global ns cum got NUNITS FIRST t_done t_first_data t_est sent0 sent1 arr0 arr1 D0id D1id S0id S1id \
        IS_SCTP hb
    global evf
    set f [split [string trim $line] " "]
    set ev [lindex $f 0]
    set from [lindex $f 2]
    set to [lindex $f 3]
    if {$evf ne ""} {
        if {$ev eq "+" && $from == $S0id && [lindex $f 4] eq "tcp"} {
            puts $evf "S [lindex $f 1] [lindex $f 10]"
        } elseif {$ev eq "r" && $to == $S0id && [lindex $f 4] eq "ack"} {
            puts $evf "A [lindex $f 1] [lindex $f 10]"
        }
    }
    if {$IS_SCTP} {
        set kind [string index [lindex $f 6] end]
        if {$kind eq "D"} {
            set unit [lindex $f 11]
        } else {
            if {$ev eq "r" && $kind eq "I" && ($to == $S0id || $to == $S1id) && [lindex $f 5] == 36} {
                if {$t_est < 0} { set t_est [lindex $f 1] }   ;# COOKIE-ACK at S
            }
            if {$ev eq "+" && $kind eq "H" && ($from == $S0id || $from == $S1id)} { incr hb }
            return
        }
    } else {
        if {[lindex $f 4] ne "tcp" || [lindex $f 5] < 1000} { return }
        set unit [lindex $f 10]
    }
    if {$ev eq "+" && ($from == $S0id || $from == $S1id)} {
        if {$from == $S0id} { incr sent0 } else { incr sent1 }
        if {$t_first_data < 0} { set t_first_data [lindex $f 1] }
        return
    }
    if {$ev ne "r" || ($to != $D0id && $to != $D1id)} { return }
    if {$to == $D0id} { incr arr0 } else { incr arr1 }
    set got($unit) 1
    while {[info exists got([expr {$cum + 1}])]} { incr cum }
    if {$cum >= $NUNITS - 1 + $FIRST && $t_done < 0} {
        set t_done [lindex $f 1]
        $ns at [$ns now] "finish"
    }
}

$ns at $CAP "finish"
$ns run
