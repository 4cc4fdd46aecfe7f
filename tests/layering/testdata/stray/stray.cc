// A folder with sources that the table does not list.
int main() { return 0; }
