return { new_table = function(t) return t end }
