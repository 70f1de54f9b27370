!mod$ v1 sum:4e5994cf80aac7f7
module counters
contains
function next_ticket()
integer(4)::next_ticket
end
end
